/// A record's chain hash, its 32 bytes held inline: handed from each record to the next as
/// the log is written, without an allocation per record.
struct ChainHash: Equatable, Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// The hash before the first record: 32 zero bytes.
    static let genesis = ChainHash()

    private init() {}

    /// The hash whose bytes are `bytes`, which must be 32.
    init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 32, "a chain hash holds 32 bytes")
        Swift.withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
    }

    /// Runs `body` on the hash's 32 bytes.
    func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try Swift.withUnsafeBytes(of: words, body)
    }

    /// The hash's bytes, in an array.
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    static func == (a: ChainHash, b: ChainHash) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }
}
