#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and atomic whole-file replacement with POSIX calls; errors name the path and the reason.
/// These block: callers in async code run them off Swift's cooperative pool.
public enum Files {
    /// Everything `descriptor` gives until its end (standard input, a pipe), read in 64 KiB pieces; `name` says
    /// what it is in an error.
    public static func readToEnd(descriptor: Int32, named name: String) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("cannot read \(name)")
            }
            bytes += chunk[0..<count]
        }
    }

    /// Every byte of the regular file at `path`. Anything else (a directory, a FIFO, a device) is refused
    /// without blocking: the file is opened non-blocking and checked before a byte is read.
    public static func readAll(_ path: String) throws(SystemError) -> [UInt8] {
        try readAllStamped(path).bytes
    }

    /// The file's bytes, and its stamp as it was when they were read began (so a change made while it was read shows
    /// as another stamp next time).
    public static func readAllStamped(_ path: String) throws(SystemError) -> (bytes: [UInt8], stamp: FileStamp) {
        // Without O_NONBLOCK, open() of a FIFO waits for a writer, and could wait forever.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw SystemError("cannot read \(path)") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw SystemError("cannot read \(path)") }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw SystemError(message: "cannot read \(path): it is not a regular file")
        }
        // A regular file never blocks, but clear the flag so reads keep their ordinary meaning.
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else { throw SystemError("cannot read \(path)") }
        // Straight into the array, one copy: as many bytes as the file has, and one more to see it end there.
        let expected = Int(status.st_size)
        var failed = false
        var bytes = [UInt8](unsafeUninitializedCapacity: expected + 1) { buffer, count in
            while count < buffer.count {
                guard let base = buffer.baseAddress else { return }
                let read = read(fd, base + count, buffer.count - count)
                if read == 0 { return }
                if read < 0 {
                    if errno == EINTR { continue }
                    failed = true
                    return
                }
                count += read
            }
        }
        guard !failed else { throw SystemError("cannot read \(path)") }
        // The buffer filled up: the file grew while it was read. Read the rest in chunks.
        var chunk = [UInt8](repeating: 0, count: bytes.count < expected + 1 ? 0 : 1 << 16)
        while !chunk.isEmpty {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("cannot read \(path)")
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return (bytes, FileStamp(status))
    }

    /// Replaces `path` with `bytes` atomically: a temporary file in the same directory is written, synced
    /// and renamed over `path`, then the directory is synced. A crash leaves the old file or the new one,
    /// never a mix. The new file keeps the old one's permission bits (0644 for a new file).
    ///
    /// When `path` is a symbolic link, the file it points to is replaced (the temporary file is written
    /// next to it), so the link stays a link. Errors name `path`; the temporary file is only a detail
    /// ("cannot write /x/items.json (via its temporary file /x/.items.json.123.4.tmp): No space left on device").
    /// Returns the stamp of the file written, taken from its descriptor before the rename, so that it is this
    /// content's even if another process replaces the file right after.
    @discardableResult
    public static func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(ReplacementError) -> FileStamp? {
        try replaceAtomically(path) { write in bytes.withUnsafeBytes { write($0) } }
    }

    /// Replaces `path` atomically, as `replaceAtomically(_:with:)` does, with the bytes `produce` hands to the
    /// writer it is given, in as many pieces as it likes (the writer answers false once a write failed, and
    /// `produce` then answers false too): a large file can be written from a buffer that is reused.
    ///
    /// A failed fsync is never taken for one that worked, nor tried again on the same data (the "fsyncgate" lesson:
    /// after a failure, Linux forgets the pages it could not write, so a second fsync succeeds having kept nothing).
    /// When the new file's fsync fails, it is deleted and `path` never changed. When the directory's fsync fails after
    /// the rename — the new content is in place but may not survive a power loss — the replacement is undone: what
    /// `path` held is written back (a new file, its own fsyncs: new data, so trying again is no fsyncgate retry, up to
    /// `undoAttempts` times) or, for a file that was not there, `path` is removed; the error says so, or, when the undo
    /// fails too, that `path` may hold either version (`ReplacementError.mayHoldEither`).
    @discardableResult
    public static func replaceAtomically(
        _ path: String, producing produce: (_ write: (UnsafeRawBufferPointer) -> Bool) -> Bool
    ) throws(ReplacementError) -> FileStamp? {
        try replaceAtomically(path, undoable: true, producing: produce)
    }

    /// How many times putting back what a file held is tried after its directory's fsync failed.
    public static let undoAttempts = 3

    private static func replaceAtomically(
        _ path: String, undoable: Bool, producing produce: (_ write: (UnsafeRawBufferPointer) -> Bool) -> Bool
    ) throws(ReplacementError) -> FileStamp? {
        let target = realPath(of: path) ?? path
        let directory = Directories.parent(of: target)
        var mode: mode_t = 0o644
        var existing = stat()
        if stat(target, &existing) == 0 {
            mode = existing.st_mode & 0o7777
        }
        let temporary = "\(directory)/.\(Directories.name(of: target)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        func failure() -> ReplacementError {
            ReplacementError(SystemError("cannot write \(path) (via its temporary file \(temporary))"), mayHoldEither: false)
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure() }
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }
        let stamp: FileStamp?
        do {
            defer { close(fd) }
            _ = fchmod(fd, mode)
            guard produce({ writeAll(fd, $0) }) else { throw failure() }
            guard synced(fd, at: .fileSync) else { throw failure() }
            stamp = FileStamp.of(descriptor: fd)
        }
        // What `path` holds until the rename, kept open so that it can be put back (see above).
        let previous = undoable ? open(target, O_RDONLY | O_CLOEXEC) : -1
        defer { if previous >= 0 { close(previous) } }
        guard rename(temporary, target) == 0 else { throw failure() }
        succeeded = true
        // The rename is durable only once the directory is synced: a write is answered only then.
        do throws(SystemError) {
            try syncDirectory(directory, of: path)
        } catch {
            guard undoable else { throw ReplacementError(error, mayHoldEither: false) }
            var undoFailure: (any Error)?
            if previous >= 0 {
                for _ in 0..<undoAttempts {
                    do {
                        _ = try replaceAtomically(target, undoable: false) { write in copy(from: previous, to: write) }
                        undoFailure = nil
                        break
                    } catch {
                        undoFailure = error
                    }
                }
            } else {
                // Removed once: syncing the same directory change again could succeed having kept nothing.
                do throws(SystemError) {
                    guard unlink(target) == 0 else { throw SystemError("cannot remove \(path)") }
                    try syncDirectory(directory, of: path)
                } catch {
                    undoFailure = error
                }
            }
            if let undoFailure {
                throw ReplacementError(
                    SystemError(
                        message: "\(error); putting back what \(path) held failed too (\(undoFailure)): it may hold either version", code: error.code),
                    mayHoldEither: true)
            }
            throw ReplacementError(
                SystemError(message: "\(error); the replacement was undone: \(path) holds what it held before", code: error.code),
                mayHoldEither: false)
        }
        return stamp
    }

    /// fsync of `fd`, which `point` may fail in a debug build (Failpoint).
    private static func synced(_ fd: Int32, at point: Failpoint) -> Bool {
        if let code = point.failure {
            errno = code
            return false
        }
        return fsync(fd) == 0
    }

    /// Makes the entries of `directory` (the parent of `path`) durable.
    private static func syncDirectory(_ directory: String, of path: String) throws(SystemError) {
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw SystemError("cannot sync the directory of \(path) (\(directory)) after replacing it") }
        defer { close(directoryFD) }
        guard synced(directoryFD, at: .directorySync) || errno == EINVAL else {
            throw SystemError("cannot sync the directory of \(path) (\(directory)) after replacing it")
        }
    }

    /// Every byte of the file open at `source`, from its start, handed to `write`.
    private static func copy(from source: Int32, to write: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { return false }
            if count == 0 { return true }
            guard chunk.withUnsafeBytes({ write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }) else { return false }
            offset += off_t(count)
        }
    }

    /// `path` with every symbolic link resolved, or nil when it cannot be resolved (it does not exist yet).
    public static func realPath(of path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Writes every byte; false with `errno` set when a write fails.
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var written = 0
        while written < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[written...])
            let count = write(fd, rest.baseAddress, rest.count)
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += count
        }
        return true
    }
}
