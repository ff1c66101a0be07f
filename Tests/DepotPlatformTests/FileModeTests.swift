import DepotPlatform
import DepotTestSupport
import Testing

@Suite("FileMode")
struct FileModeTests {
    @Test(
        "shown as at least four octal digits",
        arguments: [
            (0o444, "0444"), (0o644, "0644"), (0o7, "0007"), (0, "0000"), (0o2750, "2750"), (0o100644, "0644"),
        ] as [(UInt32, String)])
    func description(bits: UInt32, text: String) {
        #expect(FileMode(bits).description == text)
    }

    @Test(
        "hasNoWriteBit only when nobody has the write bit",
        arguments: [
            (0o444, true), (0o555, true), (0o000, true), (0o644, false), (0o464, false), (0o446, false),
        ] as [(UInt32, Bool)])
    func hasNoWriteBit(bits: UInt32, expected: Bool) {
        #expect(FileMode(bits).hasNoWriteBit == expected)
    }

    @Test("ofPath reads the permission bits, following links; nil when nothing is there")
    func ofPath() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("file", "x")
        TestFiles.setMode(file, 0o640)
        TestFiles.makeSymbolicLink(directory.file("link"), to: file)

        #expect(FileMode(ofPath: file) == FileMode(0o640))
        #expect(FileMode(ofPath: directory.file("link")) == FileMode(0o640))
        #expect(FileMode(ofPath: directory.file("missing")) == nil)
    }
}
