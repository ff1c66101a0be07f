// swift-tools-version: 6.1
import PackageDescription

/// depotd's fuzzers, a package of their own: libFuzzer targets (Swift's -sanitize=fuzzer) for every parser of
/// what a client or an administrator controls — the JSON parser, the line framing with JSON-RPC dispatch on an
/// in-process channel, the settings file, the pipeline decoder. scripts/fuzz builds them with the fuzzer
/// and AddressSanitizer and runs each on its corpus (Corpus/NAME); nothing in it ships with depotd.
let package = Package(
    name: "DepotFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Depot", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // libFuzzer's driver, started from each fuzzer's main.
        .target(name: "FuzzDriver"),
        // JSONParser on any bytes: it never crashes, and what it reads, the writer writes back the same.
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzDriver", .product(name: "DepotJSON", package: "Depot")]),
        // A pipeline's operators decoded from any JSON, run over a few states, and encoded back the same.
        .executableTarget(
            name: "FuzzPipeline",
            dependencies: [
                "FuzzDriver", .product(name: "DepotCore", package: "Depot"), .product(name: "DepotJSON", package: "Depot"),
                .product(name: "DepotOperators", package: "Depot"), .product(name: "DepotPipeline", package: "Depot"),
            ]),
        // depotd.json of any bytes, through DaemonSettings as depotd resolves it.
        .executableTarget(
            name: "FuzzSettings",
            dependencies: ["FuzzDriver", .product(name: "DepotDaemon", package: "Depot"), .product(name: "DepotPlatform", package: "Depot")]),
        // Any bytes sent on a connection of a DepotServer in process (an in-process channel with the server's own
        // handlers): every line it writes back is a JSON-RPC 2.0 response or notification, and the connection answers
        // a last request or closes.
        .executableTarget(
            name: "FuzzDispatch",
            dependencies: [
                "FuzzDriver", .product(name: "DepotCore", package: "Depot"), .product(name: "DepotJSON", package: "Depot"),
                .product(name: "DepotServer", package: "Depot"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        // Not a libFuzzer target: Depot's merge patch and JSON Patch applied to cases read as lines, for
        // scripts/fuzz-patch to compare with the reference implementations (PyPI's jsonpatch and json-merge-patch).
        .executableTarget(name: "PatchOracle", dependencies: [.product(name: "DepotJSON", package: "Depot")]),
    ]
)
