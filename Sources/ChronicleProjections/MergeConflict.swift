import Foundation

/// Something a merge overruled: a write of this store that another device's write, or a
/// deletion, made void. Listed, never an error; the events all stay in the log.
///
/// JSON (in `sync status --json`): `{"stream","kind","detail"}`.
public struct MergeConflict: Sendable, Hashable, Codable {
    /// The entity's stream, e.g. `todo-1f0e…`.
    public var stream: String
    /// `overwritten` (a write of this store lost to one that reached the server later, made
    /// earlier by its device's clock), `deleted` (writes of this store made void by another
    /// device's deletion) or `tag-renamed` (a tag shown with ` (2)`: see ``TagNames``).
    public var kind: String
    /// One line for people.
    public var detail: String

    /// Makes a conflict from its parts; `kind` is not checked.
    public init(stream: String, kind: String, detail: String) {
        self.stream = stream
        self.kind = kind
        self.detail = detail
    }
}
