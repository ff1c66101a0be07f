#if canImport(Glibc)
import Glibc
#endif

/// Writes depotctl's output: results to stdout, each line written at once so pipes
/// (`depotctl watch --json | jq`) see it as it comes; errors to stderr as one line starting with `depotctl:`.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write("depotctl: \(text)\n", to: STDERR_FILENO)
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
