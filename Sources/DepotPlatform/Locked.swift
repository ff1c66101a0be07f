#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value only reached under a lock: the same shape as the standard library's `Mutex`, on a pthread mutex.
///
/// Why not `Mutex`: on Linux it hands a contended lock over in the kernel (a priority-inheriting futex), where
/// ThreadSanitizer cannot see it, so every contended `withLock` is reported as a data race and a race-checked
/// run of the suite (`scripts/test --tsan`) would be noise. A pthread mutex is one ThreadSanitizer understands,
/// and the one SwiftNIO's locks use. Like `Mutex`, it is `Sendable` whatever the value: the value only ever
/// crosses threads inside `withLock`.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; what `body` returns or throws comes back.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
