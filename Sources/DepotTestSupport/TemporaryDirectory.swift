#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp for one test, removed with everything in it by `remove()`.
/// Its path is short, because Unix socket paths must stay under 108 bytes.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "depot-test") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        self.path = String(cString: created!)
    }

    public func file(_ name: String) -> String {
        "\(path)/\(name)"
    }

    /// Writes `text` to the file `name` in this directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let path = file(name)
        let handle = fopen(path, "w")
        precondition(handle != nil, "cannot create \(path)")
        fputs(text, handle)
        fclose(handle)
        return path
    }

    /// The text of the file `name`, or nil when it cannot be read.
    public func read(_ name: String) -> String? {
        guard let handle = fopen(file(name), "r") else { return nil }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, handle)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public func remove() {
        _ = system("rm -rf '\(path)'")
    }
}
