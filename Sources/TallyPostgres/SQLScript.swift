import Foundation

/// Splits SQL text holding several statements (a migration's DDL, written for SQLite's
/// `execute`, which takes a script) into single statements.
///
/// Why: PostgreSQL's extended-query protocol, the only one postgres-nio offers, takes one
/// statement at a time. The split knows what may hold a `;` that ends nothing: 'strings',
/// "identifiers", -- and /* */ comments, and $tag$ dollar-quoted bodies $tag$.
enum SQLScript {
    static func statements(_ text: String) -> [String] {
        let characters = Array(text)
        var statements: [String] = []
        var current = ""
        var index = 0
        func finish() {
            let statement = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !statement.isEmpty { statements.append(statement) }
            current = ""
        }
        /// Copies from `index` through the first `terminator` after `start` characters.
        func copy(through terminator: [Character], skipping start: Int) {
            var end = index + start
            while end < characters.count && !(Array(characters[end..<min(end + terminator.count, characters.count)]) == terminator) {
                end += 1
            }
            end = min(end + terminator.count, characters.count)
            current += String(characters[index..<end])
            index = end
        }
        while index < characters.count {
            let character = characters[index]
            let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "'": copy(through: ["'"], skipping: 1)
            case "\"": copy(through: ["\""], skipping: 1)
            case "-" where next == "-": copy(through: ["\n"], skipping: 2)
            case "/" where next == "*": copy(through: ["*", "/"], skipping: 2)
            case "$":
                // $tag$ or $$ opens a dollar-quoted string; $1 is a parameter.
                var end = index + 1
                while end < characters.count && (characters[end].isLetter || characters[end] == "_" || (end > index + 1 && characters[end].isNumber)) {
                    end += 1
                }
                if end < characters.count && characters[end] == "$" {
                    let tag = Array(characters[index...end])
                    copy(through: tag, skipping: tag.count)
                } else {
                    current.append(character)
                    index += 1
                }
            case ";":
                finish()
                index += 1
            default:
                current.append(character)
                index += 1
            }
        }
        finish()
        return statements
    }
}
