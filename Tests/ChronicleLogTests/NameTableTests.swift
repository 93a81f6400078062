import ChronicleTestSupport
@testable import ChronicleLog
import Testing

/// The table of the stream tail's streams and of the touches' keys (names in one buffer, found
/// through an open-addressing table of their hashes), checked against a dictionary through
/// random adds, updates and filterings, with enough names to grow it several times and to
/// collide in its buckets.
struct NameTableTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aTableAnswersAsADictionaryWould(seed: UInt64) {
        var random = TestSeed.generator(for: "NameTableTests.lane\(seed)")
        // Names of one length and prefix (as `todo-` and a UUID are), short ones, an empty one,
        // and ones beyond ASCII.
        let names = (0..<400).map { "todo-\(String($0, radix: 16).leftPadded(to: 4))" } + ["", "a", "ä", "user-é", "tag-1", "tag-10"]
        var table = NameTable<Int>(capacity: Int.random(in: 0...8, using: &random))
        var model: [String: Int] = [:]
        for step in 0..<3_000 {
            let name = names.randomElement(using: &random)!
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<5:
                // As the touches' table is written: by a name's bytes, found or added.
                let value = model[name].map { $0 + 1 } ?? step
                var bytes = name
                bytes.withUTF8 { table.set(UnsafeRawBufferPointer($0), hash: NameHash.of(UnsafeRawBufferPointer($0)), to: value) }
                model[name] = value
            case 5..<15:
                if let index = table.index(of: StreamName(name)) {
                    table[index] += 1
                    model[name]! += 1
                } else {
                    #expect(model[name] == nil, "\(name) is there but was not found")
                    let stream = StreamName(name)
                    let index = stream.withBytes { table.add($0, hash: stream.hash, value: step) }
                    #expect(table[index] == step)
                    model[name] = step
                }
            case 15..<19:
                let found = table.index(of: StreamName(name)).map { table[$0] }
                #expect(found == model[name], "\(name)")
            default:
                // What a merge or a failed transaction does: keep some streams, change others.
                let cut = Int.random(in: 0...3_000, using: &random)
                table = table.filtered { $0 < cut ? nil : $0 + 1 }
                model = model.filter { $0.value >= cut }.mapValues { $0 + 1 }
            }
        }
        #expect(table.count == model.count)
        var listed: [String: Int] = [:]
        for index in 0..<table.count {
            let name = table.name(index)
            table.withPrefix(index) { prefix in
                #expect(Array(prefix) == Array(name.utf8) + [0], "a `streams` key prefix is the name and a 0 byte")
            }
            table.withName(index) { #expect(Array($0) == Array(name.utf8)) }
            listed[name] = table[index]
        }
        #expect(listed == model)
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
