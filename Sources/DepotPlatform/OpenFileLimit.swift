#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The open-file limit (RLIMIT_NOFILE). Every connection holds a descriptor, and systemd starts services with
/// a soft limit of 1024 (its hard limit is far higher): too few for a thousand subscribers. A program that
/// uses epoll, not select, may raise its soft limit to the hard one, which is what systemd recommends.
public enum OpenFileLimit {
    /// The soft and hard limits now.
    public static var current: (soft: Int, hard: Int) {
        var limit = rlimit()
        getrlimit(resourceNumber, &limit)
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }

    /// Raises the soft limit to the hard limit; returns the soft limit before and after.
    @discardableResult
    public static func raiseToHardLimit() -> (before: Int, after: Int) {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return (0, 0) }
        let before = clamp(limit.rlim_cur)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            if setrlimit(resourceNumber, &limit) != 0 {
                return (before, before)
            }
        }
        return (before, current.soft)
    }

    private static func clamp(_ value: rlim_t) -> Int {
        value >= rlim_t(Int.max) ? Int.max : Int(value)
    }

    #if canImport(Glibc)
    private static let resourceNumber = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNumber = RLIMIT_NOFILE
    #endif
}
