package main

import "github.com/urfave/cli/v2"

// commands lists every subcommand; each lives in its own file.
func commands() []*cli.Command {
	return withAllowPrivate([]*cli.Command{
		demoCommand(),
		daemonCommand(),
		verifyCommand(),
		keygenCommand(),
		whoamiCommand(),
		challengeCommand(),
		openCommand(),
		acceptCommand(),
		moveCommand(),
		resignCommand(),
		resultCommand(),
		claimCommand(),
		arbitrateCommand(),
		ruleCommand(),
		statusCommand(),
		waitCommand(),
		gamesCommand(),
		profileCommand(),
		revealCommand(),
		fetchCommand(),
		watchCommand(),
		arbiterCommand(),
		matchesCommand(),
		exportCommand(),
		analyseCommand(),
		pgnCommand(),
		rebuildCommand(),
		pruneCommand(),
		relayCommand(),
		relaysCommand(),
		syncCommand(),
		siteCommand(),
		engineCommand(),
		simCommand(),
		mcpCommand(),
		playCommand(),
		eventsCommand(),
	})
}
