import Foundation
import Testing

/// The executables SwiftPM built beside the running test binary.
///
/// On Linux `/proc/self/exe` is the test runner inside the products folder
/// (`<scratch>/debug/`), whatever `--scratch-path` was used; elsewhere the folder
/// holding the `.xctest` bundle.
public enum Products {
    public static let directory: URL = {
        #if os(Linux)
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: exe).deletingLastPathComponent()
        }
        #endif
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }()

    /// The built executable `name`; fails the test when it is missing.
    public static func executable(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: url.path),
                     "\(name) is not built in \(directory.path): run `swift build --build-tests` first",
                     sourceLocation: sourceLocation)
        return url
    }

    /// The crash and multi-process helper (a dependency of this test target: always built).
    public static func torture() throws -> URL { try executable("ChronicleTorture") }

    /// The `chronicle` command line.
    public static func chronicle() throws -> URL { try executable("chronicle") }
}
