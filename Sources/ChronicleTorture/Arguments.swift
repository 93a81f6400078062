/// `--name value` options and `--flag` switches after the subcommand, parsed by hand
/// (the helper keeps its dependencies to the modules it exercises).
struct Arguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` (without the program name and subcommand); `flagNames` take no value.
    init(_ arguments: [String], flagNames: Set<String>) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw UsageError("unexpected argument '\(argument)'") }
            let name = String(argument.dropFirst(2))
            if flagNames.contains(name) {
                flags.insert(name)
                index += 1
                continue
            }
            guard index + 1 < arguments.count else { throw UsageError("--\(name) needs a value") }
            values[name] = arguments[index + 1]
            index += 2
        }
    }

    func string(_ name: String) throws(UsageError) -> String {
        guard let value = values[name] else { throw UsageError("--\(name) is required") }
        return value
    }

    func optionalString(_ name: String) -> String? { values[name] }

    func int(_ name: String, default defaultValue: Int? = nil) throws(UsageError) -> Int {
        guard let text = values[name] else {
            if let defaultValue { return defaultValue }
            throw UsageError("--\(name) is required")
        }
        guard let value = Int(text), value >= 0 else { throw UsageError("--\(name) must be a whole number ≥ 0, not '\(text)'") }
        return value
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// A mistake in the command line; printed as `error: …` with the usage text.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
