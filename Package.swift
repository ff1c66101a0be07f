// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Depot",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "depotd", targets: ["depotd"]),
        .executable(name: "depotctl", targets: ["depotctl"]),
        // The client library: a program that talks to depotd links it (with the protocol's types, DepotWire, through it).
        .library(name: "DepotClient", targets: ["DepotClient"]),
        // Only what the benchmarks (Benchmarks/) and the fuzzers (Fuzz/), packages of their own, import; each is used
        // there, and scripts/check-dependencies holds this list to those uses. They are no API for users.
        .library(name: "DepotJSON", targets: ["DepotJSON"]),
        .library(name: "DepotCore", targets: ["DepotCore"]),
        .library(name: "DepotCache", targets: ["DepotCache"]),
        .library(name: "DepotOperators", targets: ["DepotOperators"]),
        .library(name: "DepotPipeline", targets: ["DepotPipeline"]),
        .library(name: "DepotPlatform", targets: ["DepotPlatform"]),
        .library(name: "DepotSources", targets: ["DepotSources"]),
        .library(name: "DepotServer", targets: ["DepotServer"]),
        .library(name: "DepotDaemon", targets: ["DepotDaemon"]),
        // The power-loss test's recorder of file changes, loaded into depotd with LD_PRELOAD; nothing links it.
        .library(name: "DepotWriteRecorder", type: .dynamic, targets: ["DepotWriteRecorder"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Already in the graph through postgres-nio: SHA-256 for the content digests of file and HTTP sources, and etags.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // JSON values that keep member order and number literals exactly; parser and writer. No dependencies.
        .target(name: "DepotJSON"),

        // POSIX glue shared by every layer: default paths, directories, errno messages, a lock ThreadSanitizer can see,
        // the threads blocking calls run on.
        // Failpoints (Failpoint.swift) are compiled into debug builds only, the ones the tests run; never into a release.
        .target(
            name: "DepotPlatform",
            dependencies: [
                "CAllocator", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.define("DEPOT_FAILPOINTS", .when(configuration: .debug))]),

        // libsystemd (sd_notify, socket activation, the journal), found with pkg-config.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),

        // SO_PEERCRED and the layout of struct ucred, which Swift cannot see without _GNU_SOURCE.
        .target(name: "CPeerCredentials"),
        // mallopt, which Swift's Glibc module does not export: large blocks go back to the system when freed.
        .target(name: "CAllocator"),
        // Records every write, fsync and rename a process makes in one directory, for the power-loss test: C, since
        // it interposes libc's calls with LD_PRELOAD; built as a library of its own, never linked into anything.
        .target(name: "DepotWriteRecorder", linkerSettings: [.linkedLibrary("dl")]),

        // depotd's side of systemd: readiness and status, watchdog, socket activation, journal logging.
        .target(
            name: "DepotSystemd",
            dependencies: [
                "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Builds rpc-schema/openrpc.json into DepotWire, so the binaries serve the file in the repository.
        .executableTarget(name: "EmbedFile"),
        .plugin(name: "EmbedRPCSchema", capability: .buildTool(), dependencies: ["EmbedFile"]),

        // The domain: items, loading states, the repository and the Source protocol. No networking.
        .target(
            name: "DepotCore",
            dependencies: [
                "DepotPlatform", "DepotJSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                // The repository runs its mutations as a service of its owner's tree.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // SHA-256 for items' entity tags.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // Where items come from: `file:PATH` and the bundled demo collection; source locations; content digests.
        .target(
            name: "DepotSources",
            dependencies: [
                "DepotCore",
                "DepotPlatform",
                "DepotJSON",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // `script:PATH` sources: a stored stream of collections, each step shaped by pipeline operators and played at
        // its time as the source's change feed.
        .target(
            name: "DepotScriptSource",
            dependencies: [
                "DepotCore", "DepotJSON", "DepotOperators", "DepotPipeline", "DepotPlatform",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Operators as data: pipelines (filter, select, sort, limit, removeDuplicates, throttle, debounce, delay) and
        // their JSON form, checked strictly. The vocabulary the daemon runs, the wire carries and depotctl writes: it
        // needs nothing but JSON, so a client has it without the domain.
        .target(name: "DepotOperators", dependencies: ["DepotJSON"]),

        // Pipelines run over the repository's states as value-type state machines, and the library of named ones.
        .target(
            name: "DepotPipeline",
            dependencies: ["DepotCore", "DepotJSON", "DepotOperators", "DepotPlatform", .product(name: "Logging", package: "swift-log")]
        ),

        // Keeping the collection fresh: the refresh schedule (interval, jitter, retries, Retry-After, pausing without
        // subscribers) and the file watch (inotify, bursts settled), each a value-type machine with time as a parameter,
        // and the services that drive them on a clock.
        .target(
            name: "DepotFreshness",
            dependencies: [
                "DepotCore",
                "DepotPlatform",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // The last successful item list, kept in SQLite in the state directory, so a restart has items at once.
        .target(
            name: "DepotCache",
            dependencies: [
                "DepotPlatform", "DepotCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // `http://` and `https://` sources over AsyncHTTPClient: conditional GET, DELETE by URL template,
        // headers and secrets from files, timeouts and limits. The only target that makes network connections.
        .target(
            name: "DepotHTTPSource",
            dependencies: [
                "DepotCore",
                "DepotJSON",
                "DepotPlatform",
                "DepotSources",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // `postgres://` sources over postgres-nio: the table, its change log (trigger, NOTIFY) and the feed that keeps
        // the repository in step, one connection per daemon with jittered reconnects.
        .target(
            name: "DepotPostgresSource",
            dependencies: [
                "DepotCore",
                "DepotJSON",
                "DepotPlatform",
                "DepotSources",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // JSON-RPC 2.0 over lines, for any method set: framing, request validation, params by name, dispatch,
        // response encoding. Knows no Depot method. No transport.
        .target(
            name: "DepotRPC",
            dependencies: [
                "DepotPlatform", "DepotJSON",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),

        // Depot's protocol: method names, params and results as types, error codes, the State and stateChanged
        // encodings and their typed decoders, and rpc-schema/openrpc.json built in. The one home of the contract.
        .target(
            name: "DepotWire",
            dependencies: [
                "DepotJSON",
                "DepotOperators",
                "DepotPlatform",
                "DepotRPC",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            plugins: ["EmbedRPCSchema"]
        ),

        // The Unix-socket server: listener, connections, subscriptions and the state fan-out.
        .target(
            name: "DepotServer",
            dependencies: [
                "CPeerCredentials",
                "DepotCore",
                "DepotPlatform",
                "DepotRPC",
                "DepotWire",
                "DepotJSON",
                "DepotOperators",
                "DepotPipeline",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // A client for Depot's socket, used by depotctl and the end-to-end tests.
        .target(
            name: "DepotClient",
            dependencies: [
                "DepotPlatform",
                "DepotJSON",
                "DepotOperators",
                "DepotRPC",
                "DepotWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),

        // depotd's options, configuration and start-up, as a library so it can be tested.
        .target(
            name: "DepotDaemon",
            dependencies: [
                "DepotClient",
                "DepotSystemd",
                "DepotCore",
                "DepotPlatform",
                "DepotJSON",
                "DepotServer",
                "DepotSources",
                "DepotHTTPSource",
                "DepotPostgresSource",
                "DepotScriptSource",
                "DepotCache",
                "DepotFreshness",
                "DepotPipeline",
                "DepotRPC",
                // The item schema writes are checked by.
                "DepotSchema",
                "DepotWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // depotctl's commands and output formatting.
        .target(
            name: "DepotControl",
            dependencies: [
                "DepotClient",
                "DepotJSON",
                "DepotOperators",
                "DepotPlatform",
                "DepotRPC",
                "DepotSchema",
                "DepotWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // JSON Schema (draft-07) and OpenRPC documents: checks params, results, errors and notifications
        // against rpc-schema/openrpc.json, for tests, depotctl and rpc.discover.
        .target(name: "DepotSchema", dependencies: ["DepotPlatform", "DepotJSON"]),

        // Helpers for the tests only: gates, waitable conditions, time-outs, temporary directories, an HTTP server,
        // and the checks that hold every message depotd sends in a test to rpc-schema/openrpc.json.
        .target(
            name: "DepotTestSupport",
            dependencies: [
                "DepotClient", "DepotCore", "DepotJSON", "DepotPlatform", "DepotSchema", "DepotWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .executableTarget(name: "depotd", dependencies: ["DepotDaemon", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "depotctl", dependencies: ["DepotControl", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // Saves self-checking lists into a cache in a loop, for the test that kills it at random moments.
        .executableTarget(
            name: "depot-cache-writer",
            dependencies: ["DepotCache", "DepotCore", .product(name: "Logging", package: "swift-log")]
        ),

        // JSONTestSuite/: nst/JSONTestSuite's parsing cases (MIT, with its LICENSE).
        // PatchSuites/: json-patch/json-patch-tests (Apache-2.0, with its package.json) and RFC 7396's merge-patch examples.
        .testTarget(
            name: "DepotJSONTests", dependencies: ["DepotJSON", "DepotTestSupport"], resources: [.copy("JSONTestSuite"), .copy("PatchSuites")]
        ),
        .testTarget(
            name: "DepotPipelineTests",
            dependencies: [
                "DepotPipeline", "DepotCore", "DepotJSON", "DepotOperators", "DepotTestSupport", "DepotWire",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DepotCoreTests",
            dependencies: ["DepotPlatform", "DepotCore", "DepotJSON", "DepotTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "DepotSourcesTests",
            dependencies: [
                "DepotSources", "DepotCore", "DepotJSON", "DepotPlatform", "DepotTestSupport", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DepotScriptSourceTests",
            dependencies: [
                "DepotScriptSource", "DepotCore", "DepotJSON", "DepotTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DepotFreshnessTests",
            dependencies: [
                "DepotFreshness", "DepotCore", "DepotJSON", "DepotPlatform", "DepotSources", "DepotTestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DepotHTTPSourceTests",
            dependencies: [
                "DepotHTTPSource", "DepotCore", "DepotJSON", "DepotPlatform", "DepotSources", "DepotTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DepotPostgresSourceTests",
            dependencies: [
                "DepotPostgresSource", "DepotCore", "DepotJSON", "DepotPlatform", "DepotSources", "DepotTestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "DepotRPCTests",
            dependencies: [
                "DepotPlatform", "DepotRPC", "DepotJSON", "DepotTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DepotServerTests",
            dependencies: [
                "DepotPlatform", "DepotServer", "DepotClient", "DepotCore", "DepotJSON", "DepotOperators", "DepotPipeline", "DepotRPC", "DepotSchema",
                "DepotTestSupport",
                "DepotWire",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "DepotDaemonTests",
            dependencies: [
                "DepotDaemon", "DepotCore", "DepotFreshness", "DepotHTTPSource", "DepotJSON", "DepotPlatform", "DepotServer", "DepotSources",
                "DepotSystemd", "DepotTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "DepotSystemdTests",
            dependencies: ["DepotSystemd", "DepotDaemon", "DepotCore", "DepotTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // JSONSchemaTestSuite/: json-schema-org/JSON-Schema-Test-Suite's draft7 cases and the remote documents
        // they refer to (MIT, with its LICENSE).
        .testTarget(
            name: "DepotSchemaTests",
            dependencies: ["DepotSchema", "DepotWire", "DepotJSON", "DepotTestSupport"],
            resources: [.copy("JSONSchemaTestSuite")]
        ),
        .testTarget(
            name: "DepotWireTests",
            dependencies: [
                "DepotPlatform", "DepotWire", "DepotJSON", "DepotOperators", "DepotPipeline", "DepotRPC", "DepotSchema", "DepotTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DepotCacheTests",
            dependencies: [
                "DepotPlatform", "DepotCache", "DepotCore", "DepotJSON", "DepotTestSupport", "depot-cache-writer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DepotPlatformTests",
            dependencies: [
                "DepotPlatform", "DepotTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .testTarget(
            name: "DepotControlTests",
            dependencies: [
                "DepotControl", "DepotCore", "DepotJSON", "DepotPlatform", "DepotTestSupport", "DepotWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Installs Depot in a real systemd booted in a sandbox (scripts/systemd-sandbox) and drives it as a user would.
        .testTarget(
            name: "DepotSystemdIntegrationTests",
            dependencies: ["depotd", "depotctl", "DepotJSON", "DepotTestSupport", "DepotWire"]
        ),
        // Runs the real depotd and depotctl binaries; depending on them makes `swift build --build-tests` build them.
        .testTarget(
            name: "DepotEndToEndTests",
            dependencies: [
                "depotd", "depotctl", "depot-cache-writer", "DepotCache", "DepotClient", "DepotCore", "DepotJSON", "DepotOperators", "DepotPipeline",
                "DepotPlatform", "DepotSchema", "DepotTestSupport", "DepotWire",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)

// Every Swift target is built with the upcoming strictness: `any` spelled out, imports internal unless marked
// `public import`, and members visible only from the modules a file imports.
for target in package.targets where [.regular, .executable, .test].contains(target.type) && !target.name.hasPrefix("C") {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("InternalImportsByDefault"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
