/// The words of the notebook data set's names and bodies: mostly ASCII, a few not.
enum NotebookTexts {
    static let words = [
        "meeting", "notes", "recipe", "idea", "draft", "travel", "Lisbon", "budget", "garden", "reading",
        "list", "book", "chapter", "summary", "call", "with", "Zoë", "about", "the", "new", "kitchen",
        "plan", "for", "March", "quarterly", "review", "journal", "entry", "café", "receipt", "from",
        "Müller", "naïve", "sketch", "of", "a", "bike", "route", "to", "school", "project", "retro",
        "lecture", "on", "offline", "sync", "groceries", "and", "taxes", "🎉", "résumé", "thoughts",
    ]
    static let folderNames = ["Work", "Home", "Recipes", "Travel", "Journal", "Projects", "Reading", "Ideas",
                              "Finance", "Garden", "School", "Archive", "Études", "Health", "Music", "Café"]
    static let labelNames = ["urgent", "later", "family", "money", "draft", "done", "idea", "review",
                             "question", "followup", "español", "reference"]

    /// Words up to about `length` characters, capitalised.
    static func sentence(_ length: Int, _ rng: inout SplitMix64) -> String {
        var text = ""
        while text.count < length {
            if !text.isEmpty { text += " " }
            text += words[rng.below(words.count)]
        }
        return text.prefix(1).uppercased() + text.dropFirst()
    }
}
