import CCRC32C

/// CRC-32C (Castagnoli), the per-record checksum: the CPU's instruction where it has one
/// (SSE 4.2 on x86-64, the CRC extension on ARM64), else a table, slicing by 8.
enum CRC32C {
    /// Whether this CPU computes CRC-32C with an instruction.
    static let hasInstruction = chronicle_crc32c_has_instruction() != 0

    /// Continues `crc` (start with 0) over `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard hasInstruction, let start = bytes.baseAddress else { return table(crc, bytes) }
        return chronicle_crc32c_instruction(crc, start, bytes.count)
    }

    /// Eight tables of 256, one after the other: table 0 is the byte-wise one.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var crc = UInt32(i)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[i] = crc
        }
        for t in 1..<8 {
            for i in 0..<256 {
                let previous = tables[(t - 1) * 256 + i]
                tables[t * 256 + i] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// ``update(_:_:)`` by table, whatever the CPU has.
    static func table(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        tables.withUnsafeBufferPointer { t in
            var c = ~crc
            var i = 0
            let n = bytes.count
            while i + 8 <= n {
                let lo = bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian ^ c
                let hi = bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self).littleEndian
                c = t[1792 + Int(lo & 0xFF)] ^ t[1536 + Int((lo >> 8) & 0xFF)] ^ t[1280 + Int((lo >> 16) & 0xFF)]
                    ^ t[1024 + Int(lo >> 24)] ^ t[768 + Int(hi & 0xFF)] ^ t[512 + Int((hi >> 8) & 0xFF)]
                    ^ t[256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                c = t[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
                i += 1
            }
            return ~c
        }
    }
}
