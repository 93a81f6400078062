import ArgumentParser
import Foundation

/// Parses an entity id argument, with a one-line error for anything else.
func parseID(_ text: String, what: String) throws -> UUID {
    guard let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else {
        throw ValidationError("invalid \(what) id '\(text)': expected a UUID like 0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b")
    }
    return id
}
