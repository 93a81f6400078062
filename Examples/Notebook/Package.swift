// swift-tools-version:6.0
import PackageDescription

// A notes app on Chronicle, with a model of its own (folders, notes, labels) declared in
// Swift: Chronicle by path, one import, member lookups checked against the imports.
//   cd Examples/Notebook && swift run Notebook /tmp/notebook http://127.0.0.1:8080 <token>
// The repository's own package builds the same source as its `NotebookExample` target, and
// its tests run it against a server.
let package = Package(
    name: "Notebook",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "Chronicle", path: "../..")],
    targets: [
        .executableTarget(
            name: "Notebook",
            dependencies: [.product(name: "Chronicle", package: "Chronicle")],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
    ]
)
