#if canImport(Glibc)
import Glibc
#endif

/// The user's editor, as git and systemctl find it: $VISUAL, else $EDITOR, else vi; run through the shell so that a
/// setting with arguments (`code --wait`) works, on the terminal depotctl was run on.
struct EditorProgram {
    /// The command, as the environment gives it.
    let command: String

    init(environment: [String: String]) {
        let visual = environment["VISUAL"].flatMap { $0.isEmpty ? nil : $0 }
        let editor = environment["EDITOR"].flatMap { $0.isEmpty ? nil : $0 }
        command = visual ?? editor ?? "vi"
    }

    /// Runs the editor on `path` and waits for it: its exit status, or nil when it could not be started.
    func edit(_ path: String) -> Int32? {
        let arguments = ["/bin/sh", "-c", command + " \"$1\"", "sh", path]
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        // WIFEXITED / WEXITSTATUS, which Swift cannot call as macros.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
