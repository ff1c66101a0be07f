import Foundation
import Testing

/// The power-loss model finds what a careless writer would lose: so the end-to-end check can fail.
@Suite("PowerLossModel: only synced bytes and synced names survive")
struct PowerLossModelTests {
    static let old = Array("[1]".utf8)
    static let new = Array("[1,2]".utf8)

    /// A replacement of /d/f by /d/t, made of `steps`, from a directory holding the old version.
    static func replaced(_ steps: [RecordedCall]) throws -> PowerLossModel {
        var model = PowerLossModel(directory: "/d", existing: ["f": old])
        for step in steps { try model.apply(step) }
        return model
    }

    static let write: [RecordedCall] = [.open(fd: 5, flags: O_WRONLY | O_CREAT | O_EXCL, path: "/d/t"), .write(fd: 5, offset: 0, bytes: new)]

    @Test("written, synced, renamed, directory synced: the new version survives")
    func careful() throws {
        let model = try Self.replaced(
            Self.write + [.fsync(fd: 5), .close(fd: 5), .rename(from: "/d/t", to: "/d/f"), .open(fd: 6, flags: O_RDONLY, path: "/d"), .fsync(fd: 6)])
        #expect(model.afterPowerLoss("f") == Self.new)
        #expect(model.current("f") == Self.new)
    }

    @Test("the directory not synced after the rename: the old version comes back (an answered write lost)")
    func directoryNotSynced() throws {
        let model = try Self.replaced(Self.write + [.fsync(fd: 5), .close(fd: 5), .rename(from: "/d/t", to: "/d/f")])
        #expect(model.current("f") == Self.new)
        #expect(model.afterPowerLoss("f") == Self.old)
    }

    @Test("the file not synced before the rename: the name survives, its bytes do not (a torn file)")
    func fileNotSynced() throws {
        let model = try Self.replaced(
            Self.write + [.close(fd: 5), .rename(from: "/d/t", to: "/d/f"), .open(fd: 6, flags: O_RDONLY, path: "/d"), .fsync(fd: 6)])
        #expect(model.afterPowerLoss("f") == [])
        #expect(model.versions["f"]?.contains([]) == false, "not a version anyone wrote whole")
    }

    @Test("rewritten in place, truncated first: before its fsync a power loss finds it empty or half written")
    func inPlace() throws {
        var model = PowerLossModel(directory: "/d", existing: ["f": Self.old])
        try model.apply(.open(fd: 5, flags: O_WRONLY | O_TRUNC, path: "/d/f"))
        try model.apply(.write(fd: 5, offset: 0, bytes: Array(Self.new.prefix(2))))
        try model.apply(.fsync(fd: 5))
        #expect(model.afterPowerLoss("f") == Array(Self.new.prefix(2)))
    }

    @Test("the recorder's log is read back: records, bytes and marks")
    func parse() throws {
        let log = Array("open 7 577 /d/t\nwrite 7 0 3\n[1]fsync 7\nask 1\nrename /d/t\n/d/f\nunlink /d/x\nclose 7\nanswer 1\n".utf8)
        #expect(
            try RecordedCall.parse(log) == [
                .open(fd: 7, flags: 577, path: "/d/t"), .write(fd: 7, offset: 0, bytes: Array("[1]".utf8)), .fsync(fd: 7), .mark("ask", number: 1),
                .rename(from: "/d/t", to: "/d/f"), .unlink(path: "/d/x"), .close(fd: 7), .mark("answer", number: 1),
            ])
        #expect(throws: RecordError.self) { try RecordedCall.parse(Array("write 7 0 9\n[1]".utf8)) }
    }
}
