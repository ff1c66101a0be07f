#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What this process uses now, from /proc/self: resident memory and open file descriptors. nil where /proc has
/// no answer (not Linux).
public enum ProcessResources {
    /// Resident memory in bytes (/proc/self/statm's second field, in pages).
    public static var residentBytes: Int? {
        guard let statm = try? Files.readAll("/proc/self/statm") else { return nil }
        let fields = String(decoding: statm, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Open file descriptors (the entries of /proc/self/fd, less the one listing them).
    public static var openFiles: Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] {
                count += 1
            }
        }
        // The directory stream itself holds one.
        return count - 1
    }
}
