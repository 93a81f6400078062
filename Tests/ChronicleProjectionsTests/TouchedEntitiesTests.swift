import Foundation
@testable import ChronicleProjections
import Testing

/// A batch's overlay: each entity loaded once, folded in place, and visited in key order.
struct TouchedEntitiesTests {
    static func id(_ first: UInt8, _ last: UInt8) -> UUID {
        UUID(uuid: (first, 0, 0, 0, 0, 0, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, last))
    }

    @Test func visitsEachEntityOnceInKeyOrderAsStoredAndAsFolded() {
        let (a, b, c, d) = (Self.id(0x01, 0xFF), Self.id(0x02, 0x00), Self.id(0x01, 0x02), Self.id(0xF0, 0x01))
        let stored: [UUID: Int] = [a: 10, d: 40]
        var loads: [UUID] = []
        var overlay = TouchedEntities<Int>()
        overlay.reserve(8)
        // Touched out of key order, some twice, one removed by its last event.
        for (id, position, fold) in [(d, 3, { (n: inout Int?) in n = n.map { $0 + 1 } }), (b, 4, { $0 = 7 }),
                                     (a, 5, { $0 = $0.map { $0 * 2 } }), (d, 6, { $0 = nil }),
                                     (c, 7, { $0 = 1 }), (a, 8, { $0 = $0.map { $0 + 3 } })] as [(UUID, UInt64, (inout Int?) -> Void)] {
            overlay.fold(id, at: position, load: { loads.append(id); return stored[id] }, fold)
        }
        #expect(loads == [d, b, a, c])
        var visited: [(UUID, Int?, Int?, UInt64)] = []
        overlay.forEachSorted { id, entry in visited.append((id, entry.original, entry.current, entry.position)) }
        // Byte order: the first byte weighs most, whatever the order the batch touched them in.
        #expect(visited.map(\.0) == [c, a, b, d])
        #expect(visited.map(\.1) == [nil, 10, nil, 40])
        #expect(visited.map(\.2) == [1, 23, 7, nil])
        #expect(visited.map(\.3) == [7, 8, 4, 6])
    }

    @Test func aThrowingVisitStopsTheWalk() {
        struct Stop: Error {}
        var overlay = TouchedEntities<Int>()
        for last in UInt8(1)...5 { overlay.fold(Self.id(0x01, last), at: UInt64(last), load: { nil }) { $0 = Int(last) } }
        var seen: [Int?] = []
        #expect(throws: Stop.self) {
            try overlay.forEachSorted { _, entry in
                seen.append(entry.current)
                if entry.current == 3 { throw Stop() }
            }
        }
        #expect(seen == [1, 2, 3])
    }
}
