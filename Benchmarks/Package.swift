// swift-tools-version: 6.1
import PackageDescription

/// depotd's benchmarks, a package of their own (as swift-nio keeps its Benchmarks/): `depot-bench` measures a
/// built depotd next to Redis and the floor, and writes BENCHMARKS.md; nothing in it ships with depotd.
/// scripts/bench builds both packages and runs it.
let package = Package(
    name: "DepotBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Depot", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // epoll and eventfd, which Swift's Glibc module does not export.
        .target(name: "CBenchEpoll"),
        // The load generator, the floor, the scenarios and the report: plain sockets and threads, the same
        // client code for depotd, Redis and the floor.
        .target(name: "DepotBenchmarks", dependencies: ["CBenchEpoll"]),
        // The command: runs the scenarios, or measures one part (the cache, an optimistic removal) on its own.
        .executableTarget(
            name: "depot-bench",
            dependencies: [
                "DepotBenchmarks",
                .product(name: "DepotCache", package: "Depot"),
                .product(name: "DepotClient", package: "Depot"),
                .product(name: "DepotCore", package: "Depot"),
                .product(name: "DepotJSON", package: "Depot"),
                .product(name: "DepotPlatform", package: "Depot"),
                .product(name: "DepotSources", package: "Depot"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "DepotBenchmarksTests", dependencies: ["DepotBenchmarks"]),
    ]
)

// The same upcoming strictness as the main package.
for target in package.targets where [.regular, .executable, .test].contains(target.type) && !target.name.hasPrefix("C") {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("InternalImportsByDefault"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
