import TallyProtocol
import TallyStorage

/// `identity.signup`: a new person, with a username and a password, and no roles.
enum SignupCommand {
    static func run(_ args: Arguments, _ context: RequestContext, _ identity: IdentityResources) throws -> StoredResult {
        try args.allowOnly(["username", "password"])
        let username = try Username.read(args)
        let password = try Password.readNew(args, "password")
        // The password is no part of what a retry is compared by: it would be stored with the key.
        let request = ChangeRequest(context, owner: username, fingerprint: ["username": .string(username)])
        if let stored = try identity.store.storedResult(for: request) { return stored }
        // A taken name is refused before the (slow) hashing; the change checks again.
        if try identity.store.user(named: username) != nil { throw UsernameTaken(username).error }
        let hash = try identity.passwords.hash(password)
        return try identity.store.change(request) { change in
            try IdentityStore.createUser(&change, username: username, kind: .person, passwordHash: hash, roles: [], by: nil).result
        }
    }
}

struct UsernameTaken {
    let username: String
    init(_ username: String) { self.username = username }

    var error: TallyError { TallyError(.alreadyExists, "the username '\(username)' is taken; choose another", field: "args.username") }
}
