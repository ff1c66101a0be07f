/// The file systems file watching is tested on: tmpfs (memory, as /run and /dev/shm are) and the disk's (where /tmp,
/// /etc and /var live here), whose inotify events and timestamps differ in their details.
package enum TestFilesystem: String, Sendable, CaseIterable, CustomStringConvertible {
    case tmpfs
    case disk

    /// A fresh directory on this file system. tmpfs is /dev/shm's, checked to be one (a machine where it is not fails
    /// the test that asks, saying so); the disk is /tmp's, checked not to be tmpfs.
    package func temporaryDirectory() -> TemporaryDirectory {
        let root = self == .tmpfs ? "/dev/shm" : "/tmp"
        let isTmpfs = Self.isTmpfs(root)
        precondition(isTmpfs == (self == .tmpfs), "\(root) is \(isTmpfs ? "" : "not ")tmpfs on this machine; the \(self) tests need it to be \(self)")
        return TemporaryDirectory(prefix: "depot-\(rawValue)", in: root)
    }

    package var description: String { rawValue }

    /// Whether the mount `path` is on (the longest mount point that holds it, in /proc/self/mounts) is tmpfs.
    private static func isTmpfs(_ path: String) -> Bool {
        let mounts = TestFiles.text("/proc/self/mounts") ?? ""
        var best: (point: String, type: String) = ("", "")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            let point = String(fields[1])
            let holds = path == point || point == "/" || path.hasPrefix(point + "/")
            if holds && point.count >= best.point.count {
                best = (point, String(fields[2]))
            }
        }
        return best.type == "tmpfs"
    }
}
