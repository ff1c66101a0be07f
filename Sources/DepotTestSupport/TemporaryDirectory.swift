#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp (or `root`) for one test, removed with everything in it by `remove()`.
/// Its path is short, because Unix socket paths must stay under 108 bytes.
package struct TemporaryDirectory: Sendable {
    package let path: String

    package init(prefix: String = "depot-test", in root: String = "/tmp") {
        var template = Array("\(root)/\(prefix)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        self.path = String(cString: created!)
    }

    /// The directory `name` inside this one, made if need be: a part of a test's directory with a life of its own
    /// (a fleet host's, kept across a daemon's restart).
    package func subdirectory(_ name: String) -> TemporaryDirectory {
        let path = file(name)
        mkdir(path, 0o700)
        return TemporaryDirectory(existing: path)
    }

    private init(existing path: String) {
        self.path = path
    }

    package func file(_ name: String) -> String {
        "\(path)/\(name)"
    }

    /// Writes `text` to the file `name` in this directory and returns its path.
    @discardableResult
    package func write(_ name: String, _ text: String) -> String {
        let path = file(name)
        TestFiles.write(path, bytes: Array(text.utf8))
        return path
    }

    /// The text of the file `name`, or nil when it cannot be read.
    package func read(_ name: String) -> String? {
        TestFiles.text(file(name))
    }

    package func remove() {
        _ = system("rm -rf '\(path)'")
    }
}
