#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX helpers for asserting on real files: exact bytes, permission bits, directory listings.
package enum TestFiles {
    package static func write(_ path: String, bytes: [UInt8]) {
        let handle = fopen(path, "wb")
        precondition(handle != nil, "cannot create \(path)")
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
        fclose(handle)
    }

    package static func bytes(_ path: String) -> [UInt8]? {
        guard let handle = fopen(path, "rb") else { return nil }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, handle)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    package static func text(_ path: String) -> String? {
        bytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The permission bits of `path` (following links), or nil when it does not exist.
    package static func mode(_ path: String) -> UInt32? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt32(status.st_mode & 0o7777)
    }

    package static func setMode(_ path: String, _ mode: UInt32) {
        precondition(chmod(path, mode_t(mode)) == 0, "chmod \(path) failed")
    }

    /// True when `path` is a directory itself, not a link to one.
    package static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    package static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }

    package static func makeDirectory(_ path: String) {
        precondition(mkdir(path, 0o755) == 0, "mkdir \(path) failed")
    }

    package static func makeSymbolicLink(_ path: String, to target: String) {
        precondition(symlink(target, path) == 0, "symlink \(path) failed")
    }

    /// The names in directory `path`, without `.` and `..`, sorted.
    package static func entries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            var name = entry.pointee.d_name
            let text = withUnsafeBytes(of: &name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if text != "." && text != ".." { names.append(text) }
        }
        return names.sorted()
    }
}
