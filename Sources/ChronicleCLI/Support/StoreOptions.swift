import ArgumentParser
import Foundation

/// `--store DIR`, shared by every command: default `$CHRONICLE_STORE`, else `./.chronicle`.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store folder (default: $CHRONICLE_STORE, else ./.chronicle).")
    var store: String?

    /// The resolved store folder.
    var path: String {
        if let store { return store }
        if let environment = ProcessInfo.processInfo.environment["CHRONICLE_STORE"], !environment.isEmpty {
            return environment
        }
        return FileManager.default.currentDirectoryPath + "/.chronicle"
    }

    /// The event log's folder inside the store.
    var logPath: String { path + "/log" }
}

/// `--json`: print exactly one JSON value on stdout.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print exactly one JSON value on stdout.")
    var json = false
}
