#if canImport(Glibc)
import Glibc
#endif
import DepotCore
import DepotJSON
import Logging
import Testing

/// Small POSIX helpers for asserting on real files: exact bytes, permission bits, directory listings.
enum TestFiles {
    /// Writes `bytes` to `path`, creating or truncating it.
    static func write(_ path: String, bytes: [UInt8]) {
        let handle = fopen(path, "wb")
        precondition(handle != nil, "cannot create \(path)")
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
        fclose(handle)
    }

    /// Every byte of `path`, or nil when it cannot be opened.
    static func bytes(_ path: String) -> [UInt8]? {
        guard let handle = fopen(path, "rb") else { return nil }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, handle)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    static func text(_ path: String) -> String? {
        bytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The permission bits of `path` (following links), or nil when it does not exist.
    static func mode(_ path: String) -> UInt32? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt32(status.st_mode & 0o7777)
    }

    static func setMode(_ path: String, _ mode: UInt32) {
        precondition(chmod(path, mode_t(mode)) == 0, "chmod \(path) failed")
    }

    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    static func makeDirectory(_ path: String) {
        precondition(mkdir(path, 0o755) == 0, "mkdir \(path) failed")
    }

    /// The names in directory `path`, without `.` and `..`, sorted.
    static func entries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            var name = entry.pointee.d_name
            let text = withUnsafeBytes(of: &name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if text != "." && text != ".." { names.append(text) }
        }
        return names.sorted()
    }
}

/// A repository that logs nothing.
func makeRepository(_ source: any Source, idField: String = "id") -> Repository {
    Repository(source: source, idField: idField, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
}

/// A JSON number from its literal, for expected values such as `6.90` or `1E+2`.
func number(_ literal: String) -> JSONValue {
    .number(JSONNumber(literal: literal)!)
}

/// Runs `body` and returns the `SourceError` it threw; records an issue when it threw something else or nothing.
func sourceError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> SourceError? {
    do {
        try await body()
        Issue.record("expected a SourceError, but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as SourceError {
        return error
    } catch {
        Issue.record("expected a SourceError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    var successValue: Success? {
        if case .success(let success) = self { return success }
        return nil
    }
}
