import DepotPlatform
import DepotTestSupport
import Dispatch
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Files")
struct FilesTests {
    @Test("readAll returns every byte, including NUL and non-UTF-8 bytes")
    func readAllBytes() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("data")
        let bytes: [UInt8] = [0x00, 0xFF, 0x0A, 0x7B, 0xEF, 0xBB, 0xBF, 0x00]
        TestFiles.write(path, bytes: bytes)

        #expect(try Files.readAll(path) == bytes)
    }

    @Test("readAll reads a large file whole")
    func readAllLarge() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("large")
        let bytes = (0..<200_003).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        TestFiles.write(path, bytes: bytes)

        #expect(try Files.readAll(path) == bytes)
    }

    @Test("readAll reads past the size the file had when opened (a /proc file says 0 and has more)")
    func readAllBeyondTheStatedSize() throws {
        var status = stat()
        #expect(stat("/proc/self/cmdline", &status) == 0 && status.st_size == 0)
        let bytes = try Files.readAll("/proc/self/cmdline")
        let program = CommandLine.arguments[0]
        #expect(bytes.count > program.utf8.count, "more than the size said")
        #expect(bytes.starts(with: Array(program.utf8) + [0]))
    }

    @Test("readAll of an empty file is empty")
    func readAllEmpty() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("empty", "")
        #expect(try Files.readAll(path) == [])
    }

    @Test("readAll follows a symbolic link")
    func readAllThroughLink() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.write("target", "hello")
        let link = directory.file("link")
        TestFiles.makeSymbolicLink(link, to: target)
        #expect(try Files.readAll(link) == Array("hello".utf8))
    }

    @Test("readAll of a missing file names the path and the reason")
    func readAllMissing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("missing")

        let error = try #require(throws: SystemError.self) { try Files.readAll(path) }

        #expect(error.description == "cannot read \(path): No such file or directory")
        #expect(error.code == 2)  // ENOENT
    }

    @Test("readAll of a directory says it is not a regular file")
    func readAllDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }

        let error = try #require(throws: SystemError.self) { try Files.readAll(directory.path) }

        #expect(error.description == "cannot read \(directory.path): it is not a regular file")
        #expect(error.code == nil)
    }

    @Test("replaceAtomically replaces the content, longer or shorter")
    func replaceContent() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("file", "old content that is long")

        try Files.replaceAtomically(path, with: Array("new".utf8))
        #expect(TestFiles.bytes(path) == Array("new".utf8))

        try Files.replaceAtomically(path, with: [])
        #expect(TestFiles.bytes(path) == [])

        let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        try Files.replaceAtomically(path, with: large)
        #expect(TestFiles.bytes(path) == large)
        #expect(TestFiles.entries(directory.path) == ["file"])
    }

    @Test("replaceAtomically from pieces writes them in order; a producer that fails leaves the old file and no temporary")
    func replaceFromPieces() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("file", "old")
        let pieces = (0..<50).map { index in Array("piece \(index);".utf8) }

        try Files.replaceAtomically(path) { write in
            pieces.allSatisfy { piece in piece.withUnsafeBytes { write($0) } }
        }
        #expect(TestFiles.bytes(path) == Array(pieces.joined()))

        let error = try #require(throws: ReplacementError.self) {
            try Files.replaceAtomically(path) { write in
                _ = Array("half".utf8).withUnsafeBytes { write($0) }
                return false
            }
        }
        #expect(error.description.hasPrefix("cannot write \(path) (via its temporary file"))
        #expect(TestFiles.bytes(path) == Array(pieces.joined()))
        #expect(TestFiles.entries(directory.path) == ["file"])
    }

    @Test("replaceAtomically keeps the permission bits of the file it replaces", arguments: [0o640, 0o600, 0o444, 0o755, 0o2750] as [UInt32])
    func replaceKeepsMode(mode: UInt32) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("file", "old")
        TestFiles.setMode(path, mode)

        try Files.replaceAtomically(path, with: Array("new".utf8))

        #expect(TestFiles.mode(path) == mode)
        #expect(TestFiles.bytes(path) == Array("new".utf8))
    }

    @Test("replaceAtomically creates a missing file with mode 0644")
    func replaceCreatesFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("new")

        try Files.replaceAtomically(path, with: Array("{}".utf8))

        #expect(TestFiles.bytes(path) == Array("{}".utf8))
        #expect(TestFiles.mode(path) == 0o644)
        #expect(TestFiles.entries(directory.path) == ["new"])
    }

    @Test("replaceAtomically into a missing directory names the path and leaves nothing behind")
    func replaceMissingDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("nodir/file")

        let error = try #require(throws: ReplacementError.self) { try Files.replaceAtomically(path, with: [1]) }

        #expect(error.description.hasPrefix("cannot write \(path) (via its temporary file \(directory.path)/nodir/.file."))
        #expect(error.description.hasSuffix(".tmp): No such file or directory"))
        #expect(error.code == 2)  // ENOENT
        #expect(TestFiles.entries(directory.path) == [])
    }

    @Test("replaceAtomically over a directory fails, removes its temporary file, and leaves the directory")
    func replaceOverDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("dir")
        TestFiles.makeDirectory(path)

        let error = try #require(throws: ReplacementError.self) { try Files.replaceAtomically(path, with: [1]) }

        #expect(error.description.hasPrefix("cannot write \(path) (via its temporary file \(directory.path)/.dir."))
        #expect(error.description.hasSuffix(".tmp): Is a directory"))
        #expect(error.code == 21)  // EISDIR
        #expect(TestFiles.entries(directory.path) == ["dir"])
        #expect(TestFiles.isDirectory(path))
    }

    @Test("readAll of a FIFO is refused at once, without waiting for a writer")
    func readAllFIFO() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("fifo")
        #expect(mkfifo(path, 0o600) == 0)

        let outcome = try readAllOffThread(path) {
            // Without O_NONBLOCK, open() waits for a writer: be that writer so the test ends, and fail it.
            Issue.record("readAll blocked on a FIFO")
            let writer = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if writer >= 0 { close(writer) }
        }

        #expect(outcome?.description == "cannot read \(path): it is not a regular file")
        #expect(outcome?.code == nil)
    }

    @Test("readAll of a character device is refused without reading it", arguments: ["/dev/null", "/dev/zero"])
    func readAllDevice(path: String) throws {
        let error = try #require(throws: SystemError.self) { try Files.readAll(path) }
        #expect(error.description == "cannot read \(path): it is not a regular file")
    }

    @Test("replaceAtomically through a symbolic link replaces the file it points to and keeps the link")
    func replaceThroughLink() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        TestFiles.makeDirectory(directory.file("data"))
        let target = directory.file("data/real.json")
        TestFiles.write(target, bytes: Array("old".utf8))
        TestFiles.setMode(target, 0o640)
        let link = directory.file("items.json")
        TestFiles.makeSymbolicLink(link, to: "data/real.json")

        try Files.replaceAtomically(link, with: Array("new".utf8))

        #expect(TestFiles.isSymbolicLink(link))
        #expect(TestFiles.bytes(target) == Array("new".utf8))
        #expect(TestFiles.mode(target) == 0o640)
        #expect(TestFiles.entries(directory.path) == ["data", "items.json"])
        #expect(TestFiles.entries(directory.file("data")) == ["real.json"])
    }

    @Test("replaceAtomically through a chain of links replaces the final file")
    func replaceThroughLinkChain() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.write("real.json", "old")
        TestFiles.makeSymbolicLink(directory.file("middle"), to: target)
        TestFiles.makeSymbolicLink(directory.file("first"), to: directory.file("middle"))

        try Files.replaceAtomically(directory.file("first"), with: Array("new".utf8))

        #expect(TestFiles.isSymbolicLink(directory.file("first")))
        #expect(TestFiles.isSymbolicLink(directory.file("middle")))
        #expect(TestFiles.bytes(target) == Array("new".utf8))
    }

    /// Runs `Files.readAll(path)` on another thread and returns its error; if it has not returned within a
    /// generous limit, calls `unblock` and waits for it. A safety net against a hang, never a measurement.
    private func readAllOffThread(_ path: String, unblock: () -> Void) throws -> SystemError? {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result<[UInt8], SystemError>?>(nil)
        // A queue of its own always gets a thread, even when the shared ones are busy with other tests.
        DispatchQueue(label: "readAll-off-thread").async {
            let outcome = Result { () throws(SystemError) in try Files.readAll(path) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        if done.wait(timeout: .now() + .seconds(10)) == .timedOut {
            unblock()
            guard done.wait(timeout: .now() + .seconds(10)) == .success else {
                Issue.record("readAll of \(path) is still blocked")
                return nil
            }
        }
        guard case .failure(let error) = result.withLock({ $0 }) else {
            Issue.record("readAll of \(path) returned bytes")
            return nil
        }
        return error
    }

    @Test("readToEnd reads a pipe to its end, past one 64 KiB piece (depotctl pipeline import -)")
    func readToEndOfPipe() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        let sent = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        // A queue of its own writes while the test reads: the pipe holds far less than is sent.
        let writer = ends[1]
        DispatchQueue(label: "readToEnd-writer").async {
            var offset = 0
            while offset < sent.count {
                let written = sent[offset...].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                guard written > 0 else { break }
                offset += written
            }
            close(writer)
        }
        let read = try Files.readToEnd(descriptor: ends[0], named: "the pipe")
        close(ends[0])
        #expect(read == sent)
    }
}
