/**
 * courier(1), generated from the help texts (`courier help --man > courier.1`): each command's
 * `--help` becomes its subsection word for word, so the page and the help cannot disagree.
 */
import { VERSION } from "../version.ts";
import type { Command } from "./command.ts";
import { GLOBAL_OPTIONS_HELP } from "./help.ts";

/** Text as roff prints it: backslashes escaped, a line starting with `.` or `'` not a request. */
export function roffText(text: string): string {
  return text
    .replaceAll("\\", "\\e")
    .split("\n")
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join("\n");
}

/** Preformatted lines, as the help prints them (no filling, no hyphenation). */
const verbatim = (text: string) => `.nf\n${roffText(text)}\n.fi`;

export function manPage(commands: readonly Command[]): string {
  const synopsis = commands.map((c) => `.B courier ${c.name}\n.RI [ options ]\n.br`).join("\n");
  const sections = commands.map((c) => `.SS "courier ${c.name}"\n${verbatim(c.help)}`);
  return `.TH COURIER 1 "" "courier ${VERSION}" "User Commands"
.SH NAME
courier \\- forward RSS/Atom feeds to Telegram channels, browse SQLite databases
.SH SYNOPSIS
${synopsis}
.SH DESCRIPTION
courier reads RSS and Atom feeds on cron schedules and posts each new entry to Telegram
channels through the Bot API, and serves a browser (HTTP API and web page) over SQLite and libSQL databases.
Each command below is described by its own help, as \\fBcourier\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR
prints it.
.SH COMMANDS
${sections.join("\n")}
.SH OPTIONS
${verbatim(GLOBAL_OPTIONS_HELP)}
.SH ENVIRONMENT
.TP
.B COURIER_CONFIG
the config file when \\fB\\-c\\fR is not given (default ./config.yml)
.TP
.B COURIER_MESSENGER_AUTH_TOKEN\\fR, \\fBCOURIER_MESSENGER_AUTH_TOKEN_FILE
the bot token, or a file holding it; before the config's own
.TP
.B CREDENTIALS_DIRECTORY
systemd credentials: messenger_auth_token in it is the bot token
.TP
.B COURIER_LOG_FORMAT\\fR, \\fBCOURIER_LOG_LEVEL\\fR, \\fBNO_COLOR
how logs are written
.TP
.B COURIER_MESSENGER_API
the Bot API base URL (default https://api.telegram.org)
.TP
.B COURIER_BROWSE_TOKEN
the token \\fBbrowse\\fR requires on its API when neither \\fB\\-\\-token\\-file\\fR nor
\\fB\\-\\-token\\fR is given
.TP
.B LIBSQL_AUTH_TOKEN
the auth token of a remote libSQL database (\\fBdb_url\\fR, or the DATABASE of \\fBbrowse\\fR);
before the config's \\fBdb_auth_token_file\\fR
.TP
.B COURIER_LEASE_TTL
with \\fBdb_url\\fR, the seconds a channel's lease lasts (default 60)
.TP
.B TZ
the time zone of cron schedules and of the times \\fBstatus\\fR shows (default the machine's)
.TP
.B JOURNAL_STREAM\\fR, \\fBNOTIFY_SOCKET\\fR, \\fBWATCHDOG_USEC\\fR, \\fBWATCHDOG_PID
set by systemd: log lines then start with their syslog priority; \\fBforward\\fR reports
readiness and pings the watchdog at half its period
.TP
.B COURIER_DEBUG
any value: an unexpected error also prints its stack trace
.SH FILES
Relative paths in the config resolve against the config file's directory.
.TP
.I ./config.yml
the config when neither \\fB\\-c\\fR nor \\fBCOURIER_CONFIG\\fR names one
.TP
.I <db_dir>/courier.db
the state (SQLite): what each feed has seen and sent, its runs, its last success;
\\fBdb_dir\\fR defaults to \\fI<data_dir>/feed_data\\fR, and \\fBdata_dir\\fR to the config file's
directory
.TP
.I <data_dir>/last_success.yml
each feed's last successful run, a copy of the database's (\\fBlast_loaded_path\\fR)
.TP
.I <data_dir>/courier.lock
held by the one \\fBforward\\fR or \\fBonce\\fR that works on this data directory
.TP
.I /etc/courier/config.yml\\fR, \\fI/etc/courier/messenger_auth_token
the config and the bot token of the systemd unit, which runs with
\\fBStateDirectory=courier\\fR (\\fI/var/lib/courier\\fR, the config's \\fBdata_dir\\fR)
.SH EXIT STATUS
0 success, 1 the work ran and something failed, 2 usage or config error, 130/143 stopped by
SIGINT/SIGTERM (see each command).
.SH SEE ALSO
.BR systemd.service (5),
.BR systemd.exec (5),
.BR crontab (5)
`;
}
