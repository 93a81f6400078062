// swift-tools-version:6.0
import PackageDescription

// An app's package as an app developer writes it: Chronicle by path, one import, and
// member lookups checked against the imports (MemberImportVisibility).
//   cd Examples/TodoApp && swift run TodoApp /tmp/todo-store http://127.0.0.1:8080 <token>
// The repository's own package builds the same source as its `TodoAppExample` target
// (target names are unique across a package graph), and its tests run it against a server.
let package = Package(
    name: "TodoApp",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "Chronicle", path: "../..")],
    targets: [
        .executableTarget(
            name: "TodoApp",
            dependencies: [.product(name: "Chronicle", package: "Chronicle")],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
    ]
)
