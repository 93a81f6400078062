// swift-tools-version:6.0
import PackageDescription

// Layering (inner to outer): CLMDB (+ CLMDBGuard) → ChronicleLMDB → ChronicleLog (+ CCRC32C, its
// checksum), on ChronicleEvents (the event values and log options, no storage); ChronicleSchema
// (an app's declared model) stands alone, ChronicleTodoModel declares the todo app's model on it
// and ChronicleTodoDomain holds the todo app's values and deciders; ChronicleWire (the sync
// protocol's bodies) builds on ChronicleEvents alone; ChronicleProjections and ChronicleSync
// build on ChronicleLog (+ the todo domain, + ChronicleWire); Chronicle is the app-facing library
// (it exports no raw log); ChronicleServer is the reference remote, its storage behind a seam (on
// ChronicleEvents, no log): embedded LMDB in ChronicleServerLMDB, PostgreSQL in
// ChronicleServerPostgres (the one target that links postgres-nio); `chronicle` is the CLI. Every
// product and module is named Chronicle…, and none after a type it holds (the log's module is
// ChronicleLog, its type EventLog), so an app's own `EventLog` or `SyncServer` clashes with none,
// and `ChronicleLog.EventLog` names Chronicle's where an app has both.
let package = Package(
    name: "Chronicle",
    // Synchronization's Mutex (used across the modules) needs macOS 15 / iOS 18. Built and tested
    // on Linux; macOS needs a system LMDB that pkg-config finds; iOS does not build yet (CLMDB is a
    // system library): see the README's "Platforms".
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Chronicle", targets: ["Chronicle"]),
        .library(name: "ChronicleLog", targets: ["ChronicleLog"]),
        .library(name: "ChronicleWire", targets: ["ChronicleWire"]),
        .library(name: "ChronicleTodoDomain", targets: ["ChronicleTodoDomain"]),
        .library(name: "ChronicleLMDB", targets: ["ChronicleLMDB"]),
        .library(name: "ChronicleProjections", targets: ["ChronicleProjections"]),
        .library(name: "ChronicleSync", targets: ["ChronicleSync"]),
        .library(name: "ChronicleServer", targets: ["ChronicleServer"]),
        .library(name: "ChronicleServerLMDB", targets: ["ChronicleServerLMDB"]),
        .library(name: "ChronicleServerPostgres", targets: ["ChronicleServerPostgres"]),
        .executable(name: "chronicle", targets: ["ChronicleCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // 3.x or 4.x: jwt-kit needs 4.1 or later.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // HTTPTypes (requests, responses, fields) as Hummingbird and the server name them; already
        // in the graph through Hummingbird, declared because the server imports it.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // The server's metrics: recorded through swift-metrics' API (any backend an embedding app
        // chooses), exposed in Prometheus' text format at /metrics by swift-prometheus, whose
        // registry and histograms would otherwise be written by hand.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Tests only: commands run to completion (output, error, exit, a deadline) without
        // hand-written pipe threads.
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        // The sync server's PostgreSQL storage: the wire protocol, a connection pool and typed
        // binds, which hand-written code would have to re-do (and get wrong) at length.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // The sync client's HTTP on Linux, where FoundationNetworking's URLSession spins a core
        // while it waits and cannot keep connections alive safely; on the NIO the server
        // already builds. Apple platforms keep URLSession.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The sync server's JWT verification (HS256, RS256, ES256, JWKS): the JOSE parts, whose
        // pitfalls (algorithm confusion, key formats) a hand-written verifier would have to re-learn.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            path: "Sources/CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // LMDB's page-walking calls under a fault guard: a damaged file's wild pointer becomes
        // MDB_CORRUPTED instead of SIGSEGV (a few lines of C: Swift cannot catch a signal).
        .target(name: "CLMDBGuard", dependencies: ["CLMDB"]),
        .target(name: "ChronicleLMDB", dependencies: ["CLMDB", "CLMDBGuard"]),
        // The canonical lowercase UUID text, fast both ways; shared by the log and the domain.
        .target(name: "UUIDText"),
        // JSON both ways: the one strict scanner (event data in the log and the domain, the
        // protocol's bodies) and the one string quoter (payloads, wire events, errors, CLI output).
        .target(name: "JSONText"),
        // The records' CRC-32C with the CPU's instruction for it (a few lines of C: Swift has no
        // portable way to the instruction); ChronicleLog keeps a table for CPUs without one.
        .target(name: "CCRC32C"),
        // The event values the log stores and the wire carries (recorded and foreign events,
        // their timestamps and shape rules): no storage, so the protocol needs no LMDB.
        .target(name: "ChronicleEvents", dependencies: ["JSONText"]),
        .target(name: "ChronicleLog", dependencies: [
            "ChronicleEvents", "ChronicleLMDB", "UUIDText", "JSONText", "CCRC32C",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The sync wire protocol (push and page bodies, their parser, event JSON), shared by
        // the client and the server; the log knows nothing of it, and it knows nothing of the log.
        .target(name: "ChronicleWire", dependencies: ["ChronicleEvents", "JSONText", "UUIDText"]),
        .target(name: "ChronicleTodoDomain", dependencies: ["ChronicleSchema", "ChronicleTodoModel", "UUIDText"]),
        // An app's model declared in Swift (entities, typed fields, rules, aggregates) and its
        // record, which a store keeps; knows nothing of the log or the storage.
        .target(name: "ChronicleSchema", dependencies: ["JSONText", "UUIDText"]),
        // The todo app's model (User, Todo, Tag, DailyStat), declared on ChronicleSchema alone.
        .target(name: "ChronicleTodoModel", dependencies: ["ChronicleSchema"]),
        .target(name: "ChronicleProjections", dependencies: ["ChronicleSchema", "ChronicleTodoDomain", "ChronicleTodoModel", "ChronicleLog", "ChronicleLMDB", "UUIDText"]),
        .target(name: "ChronicleSync", dependencies: [
            "ChronicleLog", "ChronicleWire", "ChronicleLMDB",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
            .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
            .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
        ]),
        .target(name: "Chronicle", dependencies: [
            "ChronicleEvents", "ChronicleSchema", "ChronicleTodoModel", "ChronicleTodoDomain", "ChronicleLog", "ChronicleLMDB", "ChronicleProjections", "ChronicleSync", "UUIDText",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .target(name: "ChronicleServer", dependencies: [
            "ChronicleEvents", "ChronicleWire", "JSONText",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "JWTKit", package: "jwt-kit"),
        ],
        // The protocol as OpenAPI 3.0, served at /openapi.yaml (docs/openapi.yaml links here).
        resources: [.embedInCode("openapi.yaml")]),
        // The server's embedded storage: one event log per tenant in a folder (the default).
        .target(name: "ChronicleServerLMDB", dependencies: ["ChronicleServer", "ChronicleLog"]),
        .target(name: "ChronicleServerPostgres", dependencies: [
            "ChronicleServer", "ChronicleLog",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "ChronicleCLI", dependencies: [
            "Chronicle", "ChronicleSchema", "ChronicleTodoModel", "ChronicleSync", "ChronicleWire", "ChronicleTodoDomain", "ChronicleLog", "ChronicleProjections", "UUIDText",
            "ChronicleServer", "ChronicleServerLMDB", "ChronicleServerPostgres",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The example app (Examples/TodoApp, also a package of its own that depends on this one by
        // path): Chronicle alone, member lookups checked; SyncTests runs it against a server.
        .executableTarget(name: "TodoAppExample", dependencies: ["Chronicle"], path: "Examples/TodoApp/Sources/TodoApp",
                          swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        // The second example app (Examples/Notebook, a package of its own too): a model of its
        // own declared in Swift, two devices syncing; SyncTests runs it against a server.
        .executableTarget(name: "NotebookExample", dependencies: ["Chronicle"], path: "Examples/Notebook/Sources/Notebook",
                          swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        // Every common way an app catches Chronicle's errors, at the top level and in functions:
        // compiled with the tests, run by CLITests (Chronicle alone, member lookups checked).
        .executableTarget(name: "CatchPatterns", dependencies: ["Chronicle"], path: "Tests/CatchPatterns",
                          swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        // A small process the crash and multi-process tests start and kill.
        .executableTarget(name: "ChronicleTorture", dependencies: ["ChronicleLog", "ChronicleWire", "ChronicleLMDB", "Chronicle"]),

        // The merge rules' referee: a plain fold of the server's order into what every device
        // must show, written from docs/PROTOCOL.md and docs/CLI.md alone (no product module).
        .target(name: "ChronicleReferee", path: "Tests/ChronicleReferee"),
        .testTarget(name: "RefereeTests", dependencies: ["ChronicleReferee"]),
        // The referee beside a store: its log read as the referee reads events, its models as plain values.
        .target(name: "ChronicleRefereeSupport", dependencies: ["Chronicle", "ChronicleReferee", "ChronicleWire", "ChronicleLog"],
                path: "Tests/ChronicleRefereeSupport"),
        // What test targets share: child processes, the built products, the raw log to damage, a second app's
        // model, the todo app's events as the tests write and fold them.
        .target(name: "ChronicleTestSupport", dependencies: [
            "ChronicleLMDB", "ChronicleLog", "ChronicleSchema", "ChronicleTodoDomain", "ChronicleTodoModel", "UUIDText",
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], path: "Tests/ChronicleTestSupport"),
        .testTarget(name: "ChronicleLMDBTests", dependencies: ["ChronicleLMDB", "CLMDB", "ChronicleTestSupport"]),
        .testTarget(name: "UUIDTextTests", dependencies: ["UUIDText", "ChronicleTestSupport"]),
        .testTarget(name: "JSONTextTests", dependencies: ["JSONText", "ChronicleTestSupport"]),
        .testTarget(name: "ChronicleWireTests", dependencies: ["ChronicleWire", "ChronicleLog", "ChronicleTestSupport"]),
        // Test targets that run the `chronicle` binary declare it, so `swift test --filter X` builds it.
        .testTarget(name: "ChronicleLogTests", dependencies: ["ChronicleLog", "CCRC32C", "ChronicleWire", "ChronicleLMDB", "ChronicleTorture", "ChronicleCLI",
                                                       "ChronicleTestSupport"]),
        .testTarget(name: "ChronicleSchemaTests", dependencies: ["ChronicleSchema", "ChronicleTodoModel", "ChronicleTestSupport"]),
        .testTarget(name: "ChronicleTodoDomainTests", dependencies: ["ChronicleTodoDomain", "ChronicleTodoModel", "ChronicleSchema", "UUIDText", "ChronicleTestSupport"]),
        .testTarget(name: "ChronicleProjectionsTests", dependencies: ["Chronicle", "ChronicleProjections", "ChronicleSchema", "ChronicleTodoDomain", "ChronicleLog", "ChronicleLMDB", "UUIDText", "ChronicleCLI",
                                                          "ChronicleTestSupport"]),
        .testTarget(name: "ChronicleTests", dependencies: ["Chronicle", "ChronicleTodoDomain", "ChronicleLog", "ChronicleProjections", "ChronicleTorture",
                                                        "ChronicleTestSupport", "ChronicleReferee", "ChronicleRefereeSupport"]),
        .testTarget(name: "SyncTests", dependencies: ["ChronicleSync", "ChronicleWire", "ChronicleServer", "ChronicleServerLMDB", "ChronicleServerPostgres", "Chronicle",
                                                   "ChronicleTodoDomain", "ChronicleLog", "ChronicleProjections", "ChronicleCLI", "TodoAppExample", "NotebookExample", "ChronicleTestSupport", "ChronicleReferee", "ChronicleRefereeSupport",
                                                   .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                   .product(name: "Hummingbird", package: "hummingbird"),
                                                   .product(name: "Logging", package: "swift-log"),
                                                   .product(name: "NIOCore", package: "swift-nio"),
                                                   .product(name: "PostgresNIO", package: "postgres-nio"),
                                                   .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        .testTarget(name: "CLITests", dependencies: ["ChronicleCLI", "ChronicleTorture", "CatchPatterns", "ChronicleTestSupport", "ChronicleSchema", "ChronicleLog", "ChronicleWire",
                                                  "Chronicle", "ChronicleLMDB"]),
        // An app's view: Chronicle alone, with member lookups checked against the imports.
        .testTarget(name: "FacadeTests", dependencies: ["Chronicle"],
                    swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        .testTarget(name: "ReliabilityTests", dependencies: [
            "ChronicleLog", "ChronicleWire", "ChronicleLMDB", "ChronicleTodoDomain", "Chronicle", "ChronicleProjections", "ChronicleSync", "ChronicleServer", "ChronicleServerLMDB", "ChronicleTorture",
            "ChronicleCLI", "ChronicleTestSupport", "ChronicleReferee", "ChronicleRefereeSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
