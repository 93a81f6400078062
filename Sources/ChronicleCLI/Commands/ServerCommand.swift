import ArgumentParser
import ChronicleLog
import Foundation
import ChronicleServer
import ChronicleServerLMDB
import ChronicleServerPostgres
/// `chronicle server tenants|devices|revoke|reinstate|token`: an operator's view of a sync
/// server's storage (its `--data` folder or its PostgreSQL `--database`), while it runs or not.
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Operate a sync server's storage: list tenants and devices, revoke or reinstate a device, issue a development token.",
        subcommands: [Tenants.self, Devices.self, Revoke.self, Reinstate.self, Token.self])

    /// `server tenants`.
    struct Tenants: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "tenants", abstract: "List the tenants the storage holds.")
        @OptionGroup var storage: ServerStorageOptions
        @Flag(help: "Print a JSON array of names.") var json = false

        func run() async throws {
            let names = try await storage.with { try await $0.tenantNames() }
            if json {
                CLIOutput.line("[" + names.map(ServerCommand.quoted).joined(separator: ",") + "]")
            } else {
                for name in names { CLIOutput.line(name) }
            }
        }
    }

    /// `server devices TENANT`.
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices", abstract: "List a tenant's devices: first and last seen, pushed and pulled positions, revoked.")
        @OptionGroup var storage: ServerStorageOptions
        @Argument(help: "The tenant.") var tenant: String
        @Flag(help: "Print a JSON array of {device, firstSeen, lastSeen, pushedPosition, pulledPosition, revoked}.") var json = false

        func run() async throws {
            let devices = try await storage.with { try await $0.devices(of: tenant) }
            if json {
                let items = devices.map { record in
                    "{\"device\":\(ServerCommand.quoted(record.device)),\"firstSeen\":\(ServerCommand.time(record.firstSeenMilliseconds, json: true)),"
                        + "\"lastSeen\":\(ServerCommand.time(record.lastSeenMilliseconds, json: true)),"
                        + "\"pushedPosition\":\(record.pushedPosition),\"pulledPosition\":\(record.pulledPosition),\"revoked\":\(record.revoked)}"
                }
                CLIOutput.line("[" + items.joined(separator: ",") + "]")
                return
            }
            guard !devices.isEmpty else {
                CLIOutput.line("no devices recorded for \(tenant)")
                return
            }
            CLIOutput.line(CLIOutput.table(["device", "first seen", "last seen", "pushed", "pulled", "state"], devices.map { record in
                [record.device, ServerCommand.time(record.firstSeenMilliseconds, json: false),
                 ServerCommand.time(record.lastSeenMilliseconds, json: false), String(record.pushedPosition),
                 String(record.pulledPosition), record.revoked ? "revoked" : "active"]
            }))
        }
    }

    /// `server revoke TENANT DEVICE`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Refuse a device's requests from now on (on every server sharing the storage); its tenant's other devices go on.")
        @OptionGroup var storage: ServerStorageOptions
        @Argument(help: "The tenant.") var tenant: String
        @Argument(help: "The device, as its tokens' device claim names it.") var device: String

        func validate() throws { try ServerCommand.check(tenant: tenant, device: device) }

        func run() async throws {
            try await storage.with { try await $0.setRevoked(true, device: device, of: tenant) }
            CLIOutput.line("revoked \(device) of \(tenant)")
        }
    }

    /// `server reinstate TENANT DEVICE`.
    struct Reinstate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reinstate", abstract: "Let a revoked device's requests through again.")
        @OptionGroup var storage: ServerStorageOptions
        @Argument(help: "The tenant.") var tenant: String
        @Argument(help: "The device.") var device: String

        func validate() throws { try ServerCommand.check(tenant: tenant, device: device) }

        func run() async throws {
            try await storage.with { try await $0.setRevoked(false, device: device, of: tenant) }
            CLIOutput.line("reinstated \(device) of \(tenant)")
        }
    }

    /// `server token`.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print an HS256 JWT for development, which a server given the same secret (--jwt-hs256-secret-file) accepts.")
        @Option(help: "The file holding the HS256 secret (at least 32 bytes).") var secretFile: String
        @Option(help: "The tenant the token names.") var tenant: String
        @Option(help: "The device the token names (in --device-claim).") var device: String?
        @Option(help: "The key id to put in the header.") var kid: String?
        @Option(help: "The claim naming the tenant.") var tenantClaim = "sub"
        @Option(help: "The claim naming the device.") var deviceClaim = "device"
        @Option(help: "The iss to put in the token.") var issuer: String?
        @Option(help: "The aud to put in the token.") var audience: String?
        @Option(help: "How long the token is valid, in seconds.") var ttl = 3600

        func validate() throws {
            try ServerCommand.check(tenant: tenant, device: device)
            guard ttl >= 1 else { throw ValidationError("--ttl must be at least 1 second") }
        }

        func run() async throws {
            // Read and checked as the server reads it.
            var check = JWTAuthentication()
            try check.loadHS256Secret(file: secretFile, kid: kid)
            var secret = Array(try Data(contentsOf: URL(fileURLWithPath: secretFile)))
            while let last = secret.last, last == 0x0A || last == 0x0D { secret.removeLast() }
            let token = try await JWTAuthentication.developmentToken(
                secret: secret, kid: kid, tenant: tenant, tenantClaim: tenantClaim, device: device, deviceClaim: deviceClaim,
                issuer: issuer, audience: audience, lifetime: .seconds(ttl))
            CLIOutput.line(token)
        }
    }

    static func check(tenant: String, device: String?) throws {
        guard TokenTable.isValidTenant(tenant) else { throw ValidationError(SyncServerError.invalidTenant(tenant).description) }
        if let device, !JWTAuthentication.isValidDevice(device) {
            throw ValidationError("invalid device name: use 1 to 128 bytes without control characters")
        }
    }

    static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    static func time(_ milliseconds: Int64, json: Bool) -> String {
        if milliseconds == 0 { return json ? "null" : "never" }
        let text = Timestamp.format(milliseconds: milliseconds)
        return json ? "\"\(text)\"" : text
    }
}

/// Where a server's storage is, for the operator's commands: as `serve` finds it.
struct ServerStorageOptions: ParsableArguments {
    @Option(help: "The server's data folder (default: $CHRONICLE_SERVER_DATA, else ./.chronicle-server).") var data: String?
    @Option(help: ArgumentHelp("The server's PostgreSQL database (default: $CHRONICLE_DATABASE_URL).", valueName: "url"))
    var database: String?

    func validate() throws {
        if database != nil, data != nil { throw ValidationError("--data and --database exclude each other") }
    }

    /// Runs `body` with the storage opened (a database's schema brought up to date), then closes it.
    func with<T: Sendable>(_ body: (any EventStorage) async throws -> T) async throws -> T {
        let variables = ProcessInfo.processInfo.environment
        let databaseURL = database ?? (data == nil ? variables["CHRONICLE_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } : nil)
        let storage: any EventStorage
        if let databaseURL {
            do {
                storage = try PostgresEventStorage(url: databaseURL, notifications: false)
            } catch {
                throw ValidationError("--database: \(error)")
            }
        } else {
            let directory = data ?? variables["CHRONICLE_SERVER_DATA"].flatMap { $0.isEmpty ? nil : $0 }
                ?? FileManager.default.currentDirectoryPath + "/.chronicle-server"
            guard FileManager.default.fileExists(atPath: directory) else {
                throw ValidationError("no server data at \(directory): pass --data DIR (the folder `serve --data` uses)")
            }
            storage = LMDBEventStorage(dataDirectory: directory)
        }
        do {
            try await storage.prepare(tokens: TokenTable())
            let result = try await body(storage)
            await storage.close()
            return result
        } catch {
            await storage.close()
            throw error
        }
    }
}
