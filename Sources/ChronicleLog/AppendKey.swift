/// What an append's decision read beyond the streams it writes, and the keys it holds:
/// checked and written inside the writer's transaction, so a decision holds against every
/// process appending to the same log.
///
/// A stream's expected version covers what a decision read from that one stream. Rules
/// that span streams need more (the Dynamic Consistency Boundary idea: the condition of
/// an append is what its decision read, not only what it writes):
///
/// - **Touches** say "something about this key happened". A decision that read the set of
///   events about a key at head `P` appends with ``unchanged(_:since:)``: the append fails
///   if any batch that ``touch(_:)``-ed the key committed after `P`.
/// - **Claims** make a key unique: ``claim(_:by:)`` fails while another owner holds the
///   key, ``release(_:by:)`` frees it. Checking a claim is one lookup, never a scan.
///
/// ```swift
/// // Deleting a user: its todos were read at `head`; a todo created for it since must fail us.
/// try await log.append(batch, keys: [.unchanged("todos-of-user-\(id)", since: head)])
/// // Creating a todo for that user tells such deciders.
/// try await log.append(created, keys: [.touch("todos-of-user-\(id)")])
/// // A tag name is unique among live tags.
/// try await log.append(tagCreated, keys: [.claim("tag-name:work", by: "tag-\(tagID)")])
/// ```
///
/// All conditions are checked against the log before the batch; then releases, then
/// claims and touches are written. A failed condition refuses the whole batch with
/// ``EventLogError/keyConflict(key:reason:)`` and writes nothing. Keys are 1…400 bytes of UTF-8.
public enum AppendKey: Sendable, Hashable {
    /// Condition: no batch touching `key` committed after position `since`.
    case unchanged(_ key: String, since: UInt64)
    /// Effect: records that this batch touched `key` (at the batch's last position).
    case touch(_ key: String)
    /// Condition and effect: `key` must be free, held by `owner`, or released in the same batch
    /// by its holder (a rename handing a name on); afterwards `owner` holds it.
    case claim(_ key: String, by: String)
    /// Condition and effect: `key` must be free or held by `owner`; afterwards it is free.
    case release(_ key: String, by: String)

    /// The key this operation is about.
    public var key: String {
        switch self {
        case .unchanged(let key, _), .touch(let key), .claim(let key, _), .release(let key, _): key
        }
    }

    /// The longest key accepted, in UTF-8 bytes (LMDB keys stop at 511 bytes).
    public static let maxKeyBytes = 400
}
