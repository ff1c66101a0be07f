#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies one version of a file's content cheaply: the file (device, inode), its size and its
/// modification time to the nanosecond. A rewrite through a rename changes the inode; an edit in place changes
/// the time (and usually the size).
public struct FileStamp: Sendable, Equatable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    public let modifiedSeconds: Int
    public let modifiedNanoseconds: Int

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Glibc)
        modifiedSeconds = Int(status.st_mtim.tv_sec)
        modifiedNanoseconds = Int(status.st_mtim.tv_nsec)
        #else
        modifiedSeconds = Int(status.st_mtimespec.tv_sec)
        modifiedNanoseconds = Int(status.st_mtimespec.tv_nsec)
        #endif
    }

    /// The stamp of the file at `path` (links followed); nil when it cannot be read.
    public static func of(_ path: String) -> FileStamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileStamp(status)
    }

    /// The stamp of the open file `fd`.
    public static func of(descriptor fd: Int32) -> FileStamp? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        return FileStamp(status)
    }
}
