import Foundation

/// Where the built depotd and depotctl are: next to this test binary (SwiftPM puts executables and the
/// test bundle in the same build folder), unless DEPOT_BINARIES names another folder.
package enum Binaries {
    package static let folder: String = {
        if let folder = ProcessInfo.processInfo.environment["DEPOT_BINARIES"], !folder.isEmpty {
            return folder
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On some platforms the test binary sits inside a .xctest bundle.
        while folder.path.contains(".xctest") {
            folder = folder.deletingLastPathComponent()
        }
        return folder.path
    }()

    package static var depotd: String { folder + "/depotd" }
    package static var depotctl: String { folder + "/depotctl" }
}
