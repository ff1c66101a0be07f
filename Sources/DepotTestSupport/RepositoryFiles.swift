package import Foundation

/// Files of this repository that tests hold the code to: the README's examples and rpc-schema/.
package enum RepositoryFiles {
    /// The repository's root, found from this source file's place in Sources/DepotTestSupport/.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    package static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    package static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    package static func executable(named name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
