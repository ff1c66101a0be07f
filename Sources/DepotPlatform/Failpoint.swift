#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fault made inside depotd where none can be made from outside it — a system call that fails at a point a test
/// cannot reach with a full disk or a failing device alone (etcd's gofail, in small). Compiled only into debug builds,
/// the ones the tests run (`DEPOT_FAILPOINTS`, which Package.swift defines for the debug configuration): in a release
/// build, what depotd ships as, `failure` is always nil and no failpoint is read.
///
/// Armed for a whole process by `DEPOT_FAILPOINTS=NAME=ERRNO[,NAME=ERRNO…]` (`directory-sync=EIO`), or for one task
/// and what it calls synchronously by `armed(_:failing:_:)`.
public enum Failpoint: String, Sendable, CaseIterable {
    /// The fsync of a file's directory after the file was renamed into place (`Files.replaceAtomically`).
    case directorySync = "directory-sync"
    /// The fsync of the new file before its rename (`Files.replaceAtomically`).
    case fileSync = "file-sync"

    /// The errno this point fails with now, when it is armed (a failure armed for a number of times is used up).
    @inline(__always) public var failure: Int32? {
        #if DEPOT_FAILPOINTS
        if let armed = Self.inTask[self], armed.left != 0 {
            armed.left -= 1
            return armed.code
        }
        return Self.inProcess[self]
        #else
        nil
        #endif
    }

    #if DEPOT_FAILPOINTS
    /// A failure armed in one task, for a number of times (negative: every time). Only that task and what it calls
    /// synchronously reads it (a task-local value), so it needs no lock.
    private final class Armed: @unchecked Sendable {
        let code: Int32
        var left: Int
        init(code: Int32, left: Int) {
            self.code = code
            self.left = left
        }
    }

    @TaskLocal private static var inTask: [Failpoint: Armed] = [:]

    private static let inProcess: [Failpoint: Int32] = {
        let names = ["EIO": EIO, "ENOSPC": ENOSPC, "EROFS": EROFS, "EDQUOT": EDQUOT]
        var armed: [Failpoint: Int32] = [:]
        for entry in (ProcessEnvironment.variables["DEPOT_FAILPOINTS"] ?? "").split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, let point = Failpoint(rawValue: parts[0]), let code = names[parts[1]] ?? Int32(parts[1]) {
                armed[point] = code
            }
        }
        return armed
    }()

    /// Runs `body` with `point` failing with `code` in this task: the first `times` times it is reached, or every
    /// time when `times` is nil.
    public static func armed<Value>(_ point: Failpoint, failing code: Int32, times: Int? = nil, _ body: () throws -> Value) rethrows -> Value {
        var points = inTask
        points[point] = Armed(code: code, left: times ?? -1)
        return try $inTask.withValue(points, operation: body)
    }
    #endif
}
