import Foundation

/// The folder a store lives in: `log/` and `entities/`, and nothing else of anyone's.
///
/// A store is opened only in a folder that does not exist yet (it is created), is empty, or
/// already holds a Chronicle store (a `log` folder). Anything else is refused before a byte
/// is written: an empty path would put the store at the filesystem root, a file is not a
/// folder, and a folder of other things would get `log/` and `entities/` beside them.
public enum StoreFolder {
    /// Checks `path` and creates it when missing.
    /// - throws: ``ChronicleError/notAStore(path:reason:)`` saying what is there.
    public static func prepare(_ path: String) throws(ChronicleError) {
        guard !path.isEmpty else { throw .notAStore(path: path, reason: "the path is empty") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw .notAStore(path: path, reason: "it cannot be created (\(error.localizedDescription))")
            }
            return
        }
        guard isDirectory.boolValue else { throw .notAStore(path: path, reason: "it is not a directory") }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw .notAStore(path: path, reason: "it cannot be read (\(error.localizedDescription))")
        }
        if entries.isEmpty || entries.contains("log") { return }
        let shown = entries.prefix(3).map { "'\($0)'" }.joined(separator: ", ") + (entries.count > 3 ? ", …" : "")
        throw .notAStore(path: path, reason: "it holds \(shown) and no store: choose a new or empty folder")
    }
}
