import DepotClient
import DepotJSON
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes depotctl's output: results to stdout, each line written at once so pipes
/// (`depotctl watch --json | jq`) see it as it comes; errors to stderr as one line starting with `depotctl:` — or,
/// with --json, as one JSON object, `{"error":{"message":…}}` with depotd's `code` and `data` when depotd answered
/// with an error, so a script that reads JSON reads its errors too.
enum Output {
    /// Whether errors are written as JSON: set once, from the command line, before any is written.
    private static let errorsAsJSON = Atomic<Bool>(false)

    static func writeErrorsAsJSON(_ json: Bool) {
        errorsAsJSON.store(json, ordering: .relaxed)
    }

    static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        error(message: text, remote: nil)
    }

    /// A line that says how things go, not that something failed (a watch reconnected): `depotctl: …`, or with
    /// --json `{"notice":{"message":…}}`.
    static func notice(_ text: String) {
        standardError(text, json: "notice", ["message": .string(text)])
    }

    /// An error depotd answered with: its message and code, and its data too as JSON.
    static func error(_ remote: RemoteError) {
        error(message: remote.message, remote: remote)
    }

    /// Why a call did not produce a result: depotd's error as `error(_: RemoteError)` writes it, anything else as a line.
    static func error(_ failure: DepotClientError) {
        if case .remote(let remote) = failure { return error(remote) }
        error(failure.description)
    }

    private static func error(message: String, remote: RemoteError?) {
        var error: JSONObject = [:]
        if let remote { error["code"] = .number(JSONNumber(remote.code)) }
        error["message"] = .string(message)
        if let data = remote?.data { error["data"] = data }
        standardError(remote?.description ?? message, json: "error", error)
    }

    /// One line on stderr: `depotctl: text`, or with --json `{key: members}`.
    private static func standardError(_ text: String, json key: String, _ members: JSONObject) {
        guard errorsAsJSON.load(ordering: .relaxed) else { return write("depotctl: \(text)\n", to: STDERR_FILENO) }
        write(JSONValue.object([key: .object(members)]).jsonText + "\n", to: STDERR_FILENO)
    }

    /// `text` as it is, on standard error (the usage `depotctl` alone prints).
    static func usage(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE, descriptor == STDOUT_FILENO { exit(0) }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
