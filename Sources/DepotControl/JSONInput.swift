import ArgumentParser
import DepotJSON
import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// JSON a command is given: a file's, standard input's (`-`), or an argument's own text, parsed, with an error that
/// names where it came from and where in it the problem is (a usage error: exit 64).
enum JSONInput {
    /// The JSON in the file at `path`, or on standard input when `path` is `-`.
    static func file(_ path: String, what: String) throws -> JSONValue {
        let bytes: [UInt8]
        if path == "-" {
            bytes = standardInput()
        } else {
            do {
                bytes = try Files.readAll(path)
            } catch {
                throw ValidationError("\(what): \(error)")
            }
        }
        return try parse(bytes, what: path == "-" ? "\(what) (standard input)" : "\(what) (\(path))")
    }

    /// The JSON in `text`, an argument; `-` reads it from standard input.
    static func argument(_ text: String, what: String) throws -> JSONValue {
        if text == "-" { return try file("-", what: what) }
        return try parse(Array(text.utf8), what: what)
    }

    static func parse(_ bytes: [UInt8], what: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw ValidationError("\(what) is not valid JSON: \(error) (\(error.position(in: bytes)))")
        }
    }

    /// Everything on standard input, to its end.
    private static func standardInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
