/// `1234567` → `1,234,567`.
func grouped(_ value: UInt64) -> String {
    let digits = String(value)
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return out
}

/// `1 user`, `1,200 users`.
func counted(_ value: some BinaryInteger, _ noun: String) -> String {
    "\(grouped(UInt64(value))) \(noun)\(value == 1 ? "" : "s")"
}
