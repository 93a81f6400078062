import Crypto
import Domain
import EventLog
import Foundation

/// What a command decided: the events to append, and the keys that make the decision's
/// reads part of the append's condition (see ``AppendKey``).
struct Decision {
    var streams: [StreamAppend]
    var keys: [AppendKey] = []
}

/// The names of the keys the store's commands condition on. One place, so that a writer
/// and the deciders that must notice it agree.
enum ConsistencyKeys {
    /// Touched by every event that gives a user a todo; a user's deletion, which read the
    /// user's todos, is conditioned on it being unchanged.
    static func todosOfUser(_ userID: String) -> String { "user-\(userID)/todos" }

    /// Claimed by the live tag that has a name (case-folded); released when it is renamed
    /// or deleted. A folded name too long for a key is named by its SHA-256.
    static func tagName(_ name: String) -> String {
        let folded = Tag.foldedName(name)
        let key = "tag-name:" + folded
        guard key.utf8.count > AppendKey.maxKeyBytes else { return key }
        return "tag-name-sha256:" + SHA256.hash(data: Data(folded.utf8)).map { byte in
            String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
