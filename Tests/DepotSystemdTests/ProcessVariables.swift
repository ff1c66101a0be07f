#if canImport(Glibc)
import Glibc
#endif

/// libsystemd reads NOTIFY_SOCKET, WATCHDOG_USEC and LISTEN_* from the process environment, so these tests set
/// them on the test process. Every such test runs in one serialized suite and puts the variables back after.
enum ProcessVariables {
    static func with<Value>(_ variables: [String: String?], _ body: () async throws -> Value) async rethrows -> Value {
        let saved = variables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
        for (name, value) in variables {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return try await body()
    }
}
