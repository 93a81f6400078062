/// CRC-32C (Castagnoli), the per-record checksum. Table-driven, slicing by 8.
enum CRC32C {
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for i in 0..<256 {
            var crc = UInt32(i)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[0][i] = crc
        }
        for i in 0..<256 {
            for t in 1..<8 { tables[t][i] = (tables[t - 1][i] >> 8) ^ tables[0][Int(tables[t - 1][i] & 0xFF)] }
        }
        return tables
    }()

    /// Continues `crc` (start with 0) over `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        let t = tables
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            let lo = bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian ^ c
            let hi = bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self).littleEndian
            c = t[7][Int(lo & 0xFF)] ^ t[6][Int((lo >> 8) & 0xFF)] ^ t[5][Int((lo >> 16) & 0xFF)] ^ t[4][Int(lo >> 24)]
                ^ t[3][Int(hi & 0xFF)] ^ t[2][Int((hi >> 8) & 0xFF)] ^ t[1][Int((hi >> 16) & 0xFF)] ^ t[0][Int(hi >> 24)]
            i += 8
        }
        while i < n {
            c = t[0][Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
            i += 1
        }
        return ~c
    }
}
