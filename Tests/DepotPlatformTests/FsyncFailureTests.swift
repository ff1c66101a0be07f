import DepotPlatform
import DepotTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fsync failure policy of `Files.replaceAtomically` (RELIABILITY.md, "A failed fsync"): a failed fsync is never
/// taken for one that worked; the replacement it belonged to is refused and, when it was already in place, undone.
/// The failures come from failpoints, compiled into these (debug) builds only.
@Suite("A failed fsync refuses the replacement it belonged to")
struct FsyncFailureTests {
    @Test("the new file's fsync fails: the file is unchanged, no temporary is left, and the error names the path")
    func fileSyncFails() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        TestFiles.write(path, bytes: Array("old".utf8))
        let error = #expect(throws: ReplacementError.self) {
            try Failpoint.armed(.fileSync, failing: EIO) { try Files.replaceAtomically(path, with: Array("new".utf8)) }
        }
        #expect(error?.code == EIO)
        #expect(error?.description.contains("cannot write \(path)") == true)
        #expect(try Files.readAll(path) == Array("old".utf8))
        #expect(entries(of: directory.path) == ["items.json"])
    }

    @Test("the directory's fsync fails once after the rename: what the file held is put back, and the error says so")
    func directorySyncFails() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        let old = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        TestFiles.write(path, bytes: old)
        #expect(chmod(path, 0o640) == 0)
        let error = #expect(throws: ReplacementError.self) {
            try Failpoint.armed(.directorySync, failing: EIO, times: 1) { try Files.replaceAtomically(path, with: Array("new".utf8)) }
        }
        #expect(error?.code == EIO)
        #expect(error?.description.contains("the replacement was undone") == true)
        #expect(error?.mayHoldEither == false)
        #expect(try Files.readAll(path) == old)
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o7777 == 0o640)
        #expect(entries(of: directory.path) == ["items.json"])
    }

    @Test("the directory's fsync fails every time: the old content is put back in place, and the error says the file may hold either")
    func directorySyncKeepsFailing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        TestFiles.write(path, bytes: Array("old".utf8))
        let error = #expect(throws: ReplacementError.self) {
            try Failpoint.armed(.directorySync, failing: EIO) { try Files.replaceAtomically(path, with: Array("new".utf8)) }
        }
        #expect(error?.description.contains("may hold either version") == true)
        #expect(error?.mayHoldEither == true)
        #expect(try Files.readAll(path) == Array("old".utf8))
        #expect(entries(of: directory.path) == ["items.json"])
    }

    @Test(
        "the directory's fsync fails again while putting the old content back: the undo is tried again, each time with a new file",
        arguments: 2...Files.undoAttempts)
    func undoTriedAgain(failures: Int) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        TestFiles.write(path, bytes: Array("old".utf8))
        let error = #expect(throws: ReplacementError.self) {
            try Failpoint.armed(.directorySync, failing: EIO, times: failures) { try Files.replaceAtomically(path, with: Array("new".utf8)) }
        }
        #expect(error?.mayHoldEither == false)
        #expect(error?.description.contains("the replacement was undone") == true)
        #expect(try Files.readAll(path) == Array("old".utf8))
        #expect(entries(of: directory.path) == ["items.json"])
    }

    @Test("the undo fails as often as it is tried: the error says the file may hold either version")
    func undoFailsEveryTime() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        TestFiles.write(path, bytes: Array("old".utf8))
        let error = #expect(throws: ReplacementError.self) {
            try Failpoint.armed(.directorySync, failing: EIO, times: 1 + Files.undoAttempts) {
                try Files.replaceAtomically(path, with: Array("new".utf8))
            }
        }
        #expect(error?.mayHoldEither == true)
    }

    @Test("the directory's fsync fails after creating a file that was not there: the file is removed again")
    func directorySyncFailsForANewFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("pipeline.json")
        let error = #expect(throws: ReplacementError.self) {
            try Failpoint.armed(.directorySync, failing: EIO, times: 1) { try Files.replaceAtomically(path, with: Array("{}".utf8)) }
        }
        #expect(error?.description.contains("the replacement was undone") == true)
        #expect(access(path, F_OK) != 0)
    }

    @Test("without a failpoint armed, the same calls replace the file")
    func unarmed() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        TestFiles.write(path, bytes: Array("old".utf8))
        try Files.replaceAtomically(path, with: Array("new".utf8))
        #expect(try Files.readAll(path) == Array("new".utf8))
    }

    /// The names in `directory`, sorted.
    private func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
