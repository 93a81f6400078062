// swift-tools-version:6.0
import PackageDescription

// The benchmark lives in its own package so that neither the library's users nor
// `tools/test` ever build GRDB: only `tools/bench` does (from this folder, `tools/benchmark`).
let package = Package(
    name: "ChronicleBench",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "chronicle-bench", targets: ["ChronicleBench"]),
    ],
    dependencies: [
        .package(name: "Chronicle", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // `live`: a thousand devices' pulls on one client (already in the library's graph).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "ChronicleBench",
            dependencies: [
                .product(name: "ChronicleLog", package: "Chronicle"),
                .product(name: "ChronicleLMDB", package: "Chronicle"),
                .product(name: "ChronicleTodoDomain", package: "Chronicle"),
                .product(name: "ChronicleWire", package: "Chronicle"),
                .product(name: "Chronicle", package: "Chronicle"),
                .product(name: "ChronicleServer", package: "Chronicle"),
                .product(name: "ChronicleServerLMDB", package: "Chronicle"),
                .product(name: "ChronicleServerPostgres", package: "Chronicle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
)
