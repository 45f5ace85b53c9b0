#include "commandspec.h"

#include <QSet>

namespace ClusterDeck::Cli {

namespace {

using K = ValueKind;

OptionSpec flag(const QString &name, const QString &help, const QStringList &aliases = {})
{
    OptionSpec o;
    o.name = name;
    o.help = help;
    o.aliases = aliases;
    return o;
}

OptionSpec valued(const QString &name, const QString &valueName, const QString &help,
                  ValueKind kind = K::Text, bool repeatable = false)
{
    OptionSpec o;
    o.name = name;
    o.valueName = valueName;
    o.help = help;
    o.kind = kind;
    o.repeatable = repeatable;
    return o;
}

OptionSpec choice(const QString &name, const QStringList &choices, const QString &help)
{
    OptionSpec o = valued(name, choices.join(QLatin1Char('|')), help, K::Choice);
    o.choices = choices;
    return o;
}

OptionSpec json(const QString &what = QStringLiteral("print JSON instead of a table"))
{
    return flag(QStringLiteral("--json"), what);
}

QList<CommandSpec> makeSpecs()
{
    const OptionSpec countOption = valued(
        QStringLiteral("--count"), QStringLiteral("ROLE=N"),
        QStringLiteral("kernels of ROLE (within the template's min/max)"), K::RoleCount, true);
    const OptionSpec envOption = valued(
        QStringLiteral("--env"), QStringLiteral("K=V"),
        QStringLiteral("set K in every kernel (over the template and the image)"), K::Text, true);
    const OptionSpec kernelOption =
        valued(QStringLiteral("--kernel"), QStringLiteral("HOSTNAME"),
               QStringLiteral("a kernel of the session (the operation still acts on all of it)"),
               K::Kernel);
    const OptionSpec settleOption =
        valued(QStringLiteral("--settle"), QStringLiteral("SECONDS"),
               QStringLiteral("RUNNING once every kernel stayed up SECONDS after its start "
                              "(default 2)"));
    const OptionSpec hostTimeout =
        valued(QStringLiteral("--timeout"), QStringLiteral("SECONDS"),
               QStringLiteral("each host's budget for answering (default 5)"));
    const OptionSpec hostsOption =
        valued(QStringLiteral("--hosts"), QStringLiteral("H,..."),
               QStringLiteral("only these registered hosts (default: all)"), K::Host);
    OptionSpec username = valued(QStringLiteral("--username"), QStringLiteral("USER"),
                                 QStringLiteral("the registry account"));
    username.aliases = {QStringLiteral("-u")};
    OptionSpec password = valued(QStringLiteral("--password"), QStringLiteral("PASSWORD"),
                                 QStringLiteral("the password (visible to other users: prefer "
                                                "--password-stdin)"));
    password.aliases = {QStringLiteral("-p")};
    OptionSpec output = valued(QStringLiteral("--output"), QStringLiteral("FILE"),
                               QStringLiteral("write there instead of stdout"), K::File);
    output.aliases = {QStringLiteral("-o")};

    return {
        {QStringLiteral("host add"),
         QStringLiteral(
             "NAME --docker ENDPOINT|--context CTX [--tls-ca F --tls-cert F --tls-key F] "
             "[--address PUBLIC_ADDR] [--label K=V]... [--no-check]"),
         QStringLiteral("register a Docker host (ENDPOINT: unix:///path/docker.sock, "
                        "tcp://host:2375, tcp+tls://host:2376, ssh://[user@]host[:port]; or a "
                        "docker CLI context)"),
         {valued(QStringLiteral("--docker"), QStringLiteral("ENDPOINT"),
                 QStringLiteral("the daemon's API endpoint")),
          valued(QStringLiteral("--context"), QStringLiteral("CTX"),
                 QStringLiteral("the endpoint and TLS files of this docker CLI context "
                                "($DOCKER_CONFIG, default ~/.docker; only read)")),
          valued(QStringLiteral("--tls-ca"), QStringLiteral("F"),
                 QStringLiteral("CA certificate (PEM) for tcp+tls"), K::File),
          valued(QStringLiteral("--tls-cert"), QStringLiteral("F"),
                 QStringLiteral("client certificate (PEM)"), K::File),
          valued(QStringLiteral("--tls-key"), QStringLiteral("F"),
                 QStringLiteral("client key (PEM)"), K::File),
          valued(QStringLiteral("--address"), QStringLiteral("PUBLIC_ADDR"),
                 QStringLiteral("the address published ports are reached at")),
          valued(QStringLiteral("--label"), QStringLiteral("K=V"),
                 QStringLiteral("a host label that templates can place kernels by"), K::Text, true),
          flag(QStringLiteral("--no-check"),
               QStringLiteral("register without asking the daemon first"))},
         {K::Text}},
        {QStringLiteral("host import-contexts"),
         QStringLiteral("[--no-check]"),
         QStringLiteral("register every docker CLI context as a host of its name (those "
                        "registered already, or unsupported, are skipped with the reason)"),
         {flag(QStringLiteral("--no-check"),
               QStringLiteral("register without asking the daemons first"))},
         {}},
        {QStringLiteral("host trust"),
         QStringLiteral("ssh://[USER@]HOST[:PORT] [--yes]"),
         QStringLiteral("show the SSH host key(s) a host presents, with fingerprints; with --yes "
                        "add them to the known_hosts file ssh uses for it"),
         {flag(QStringLiteral("--yes"),
               QStringLiteral("add the keys shown (compare the fingerprints first)"))},
         {K::Text}},
        {QStringLiteral("host ls"),
         QStringLiteral("[--json] [--timeout SECONDS]"),
         QStringLiteral("the registered hosts: reachability, versions, swarm, capacity"),
         {json(), hostTimeout},
         {}},
        {QStringLiteral("host rm"),
         QStringLiteral("NAME"),
         QStringLiteral("forget a host"),
         {},
         {K::Host}},
        {QStringLiteral("host inspect"),
         QStringLiteral("NAME [--json] [--timeout SECONDS]"),
         QStringLiteral("one host in detail"),
         {json(), hostTimeout},
         {K::Host}},
        {QStringLiteral("network setup"),
         QStringLiteral("[--driver vxlan|swarm] [--pool CIDR] [--vnis RANGE] [--vxlan-port PORT] "
                        "[--json]"),
         QStringLiteral("choose how multi-node sessions are networked and record it in the "
                        "store: vxlan (the default) needs no setup on the hosts, only UDP PORT "
                        "open between them; swarm makes all registered hosts one swarm "
                        "(idempotent). Without options: the store's settings (vxlan), or the "
                        "swarm setup again (swarm)"),
         {choice(QStringLiteral("--driver"), {QStringLiteral("vxlan"), QStringLiteral("swarm")},
                 QStringLiteral("the store's driver for new multi-node sessions (running ones "
                                "keep theirs)")),
          valued(QStringLiteral("--pool"), QStringLiteral("CIDR"),
                 QStringLiteral("the IPv4 range sessions get a /24 of (default 100.64.0.0/10)")),
          valued(QStringLiteral("--vnis"), QStringLiteral("RANGE"),
                 QStringLiteral("the VXLAN ids sessions get one of, FIRST-LAST (default "
                                "1048576-16777215)")),
          valued(QStringLiteral("--vxlan-port"), QStringLiteral("PORT"),
                 QStringLiteral("the UDP port of the VXLAN traffic between hosts, 1024-65535 "
                                "(default 4789)")),
          json(QStringLiteral("print the settings (vxlan) or the swarm report (swarm) as "
                              "JSON"))},
         {}},
        {QStringLiteral("network show"),
         QStringLiteral("[--json]"),
         QStringLiteral("the store's network settings: driver, pool, VNIs, VXLAN port"),
         {json(QStringLiteral("print the settings as JSON"))},
         {}},
        {QStringLiteral("template validate"),
         QStringLiteral("FILE..."),
         QStringLiteral("check cluster templates (and task files); exit 1 on the first error "
                        "found in any"),
         {},
         {K::File}},
        {QStringLiteral("template render"),
         QStringLiteral("FILE [--count ROLE=N]... [--env K=V]... [--json]"),
         QStringLiteral("the resolved plan: every kernel's hostname, rank, env, files"),
         {countOption, envOption, json(QStringLiteral("print the plan as JSON"))},
         {K::File}},
        {QStringLiteral("export"),
         QStringLiteral("TEMPLATE|SESSION --format jobset|compose [--count ROLE=N]... "
                        "[--output FILE]"),
         QStringLiteral("a template file (with --count) or a stored session as it runs now, as "
                        "a Kubernetes JobSet (kernel hostnames become the pods' DNS names) or a "
                        "Compose file for one Docker host (a service per kernel); what the "
                        "format cannot carry is said on stderr"),
         {choice(QStringLiteral("--format"), {QStringLiteral("jobset"), QStringLiteral("compose")},
                 QStringLiteral("jobset (jobset.x-k8s.io/v1alpha2) or compose (compose-spec)")),
          countOption, output},
         {K::File}},
        {QStringLiteral("launch"),
         QStringLiteral("FILE [--name NAME] [--count ROLE=N]... [--env K=V]... "
                        "[--mount SRC:DST[:ro]]... [--mode single-node|multi-node|auto] "
                        "[--strategy spread|pack] [--per-host-limit N] [--settle SECONDS] "
                        "[--no-wait] [--dry-run] [--json]"),
         QStringLiteral("launch a session from a template; --dry-run: the placement (and why a "
                        "host is not used) only"),
         {valued(QStringLiteral("--name"), QStringLiteral("NAME"),
                 QStringLiteral("the session's name (default: TEMPLATE-SHORTID)")),
          countOption, envOption,
          valued(QStringLiteral("--mount"), QStringLiteral("SRC:DST[:ro]"),
                 QStringLiteral("in every kernel; an absolute SRC is a bind mount, else a volume"),
                 K::Text, true),
          choice(
              QStringLiteral("--mode"),
              {QStringLiteral("single-node"), QStringLiteral("multi-node"), QStringLiteral("auto")},
              QStringLiteral("one host with a bridge, or several with an overlay")),
          choice(QStringLiteral("--strategy"), {QStringLiteral("spread"), QStringLiteral("pack")},
                 QStringLiteral("how kernels are placed over the hosts (default spread)")),
          valued(QStringLiteral("--per-host-limit"), QStringLiteral("N"),
                 QStringLiteral("containers created at once on one host (1-256, default 8)")),
          settleOption,
          flag(QStringLiteral("--no-wait"), QStringLiteral("return once the session is recorded")),
          flag(QStringLiteral("--dry-run"), QStringLiteral("show the placement; launch nothing")),
          json(QStringLiteral("print the launched session as JSON"))},
         {K::File}},
        {QStringLiteral("ls"),
         QStringLiteral("[--json] [--all]"),
         QStringLiteral("every session the store holds, ended ones too"),
         {json(), flag(QStringLiteral("--all"),
                       QStringLiteral("changes nothing (ended sessions are always listed)"))},
         {}},
        {QStringLiteral("show"),
         QStringLiteral("SESSION [--json]"),
         QStringLiteral("one session and its kernels (SESSION = id, short id or name)"),
         {json(QStringLiteral("print the session as JSON"))},
         {K::Session}},
        {QStringLiteral("restart"),
         QStringLiteral("SESSION [--kernel HOSTNAME]"),
         QStringLiteral("restart the whole session"),
         {kernelOption},
         {K::Session}},
        {QStringLiteral("rm"),
         QStringLiteral("SESSION [--kernel HOSTNAME]"),
         QStringLiteral("terminate: always the whole session"),
         {kernelOption},
         {K::Session}},
        {QStringLiteral("scale"),
         QStringLiteral("SESSION ROLE=N [ROLE=N]... [--settle SECONDS] [--json]"),
         QStringLiteral("grow or shrink roles of a running session within the template's "
                        "min/max (new kernels take the next indices; the highest go first; the "
                        "primary never goes)"),
         {settleOption, json(QStringLiteral("print the session as JSON"))},
         {K::Session, K::RoleCount}},
        {QStringLiteral("logs"),
         QStringLiteral("SESSION [--kernel HOSTNAME] [--follow] [--tail N|all]"),
         QStringLiteral("the last N lines of each kernel (default 1000), streamed as they arrive"),
         {kernelOption,
          flag(QStringLiteral("--follow"), QStringLiteral("keep streaming new lines"),
               {QStringLiteral("-f")}),
          valued(QStringLiteral("--tail"), QStringLiteral("N|all"),
                 QStringLiteral("lines of the past to print first"))},
         {K::Session}},
        {QStringLiteral("reconcile"),
         QStringLiteral("[--json] [--timeout S]"),
         QStringLiteral("one controller pass: here if no controller leads, else by the leader "
                        "(waits for its report)"),
         {json(QStringLiteral("print the report as JSON")),
          valued(QStringLiteral("--timeout"), QStringLiteral("S"),
                 QStringLiteral("how long to wait for the leader's report"))},
         {}},
        {QStringLiteral("controller"),
         QStringLiteral("[--resync S] [--lease-ttl S] [--grace S]"),
         QStringLiteral("run the controller in the foreground (leader election; SIGTERM resigns "
                        "and exits)"),
         {valued(QStringLiteral("--resync"), QStringLiteral("S"),
                 QStringLiteral("seconds between full reconcile passes")),
          valued(QStringLiteral("--lease-ttl"), QStringLiteral("S"),
                 QStringLiteral("the leader lease's time to live")),
          valued(QStringLiteral("--grace"), QStringLiteral("S"),
                 QStringLiteral("how young an object is left alone"))},
         {}},
        {QStringLiteral("watch"),
         QString(),
         QStringLiteral("follow the store's changes (statuses, events, leader)"),
         {},
         {}},
        {QStringLiteral("prune"),
         QStringLiteral("[--older-than DURATION] [--dry-run]"),
         QStringLiteral("forget ended sessions (never running ones); DURATION like 90s, 30m, "
                        "12h, 7d, 2w"),
         {valued(QStringLiteral("--older-than"), QStringLiteral("DURATION"),
                 QStringLiteral("only sessions that ended longer ago")),
          flag(QStringLiteral("--dry-run"), QStringLiteral("list what would go"))},
         {}},
        {QStringLiteral("image ls"),
         QStringLiteral("[--hosts H,...] [--json]"),
         QStringLiteral("which images are on which host (a host x image matrix)"),
         {hostsOption, json()},
         {}},
        {QStringLiteral("image pull"),
         QStringLiteral("IMAGE [--hosts H,...] [--if-not-present] [--json]"),
         QStringLiteral("pull onto every (or the given) host at once, with progress"),
         {hostsOption,
          flag(QStringLiteral("--if-not-present"), QStringLiteral("skip hosts that have it")),
          json()},
         {K::Text}},
        {QStringLiteral("image rm"),
         QStringLiteral("IMAGE [--hosts H,...] [--force]"),
         QStringLiteral("remove an image from every (or the given) host"),
         {hostsOption,
          flag(QStringLiteral("--force"), QStringLiteral("also if containers use it"))},
         {K::Text}},
        {QStringLiteral("registry login"),
         QStringLiteral("[SERVER] -u USER [--password-stdin | -p PASSWORD] [--no-verify]"),
         QStringLiteral("log in to a registry (logins shared with the docker CLI, "
                        "~/.docker/config.json)"),
         {username, password,
          flag(QStringLiteral("--password-stdin"), QStringLiteral("read the password from stdin")),
          flag(QStringLiteral("--no-verify"), QStringLiteral("store the login without trying it"))},
         {K::Text}},
        {QStringLiteral("registry logout"),
         QStringLiteral("[SERVER]"),
         QStringLiteral("forget a registry login"),
         {},
         {K::Text}},
        {QStringLiteral("registry ls"),
         QStringLiteral("[--json]"),
         QStringLiteral("the registry logins"),
         {json()},
         {}},
        {QStringLiteral("exec"),
         QStringLiteral("SESSION [--kernel H | --role R | --all] [--parallel N] [--timeout S] "
                        "[--json] -- CMD..."),
         QStringLiteral("run CMD in every selected kernel at once (default: all); lines prefixed "
                        "with the hostname; exit = worst exit code"),
         {kernelOption,
          valued(QStringLiteral("--role"), QStringLiteral("R"),
                 QStringLiteral("every kernel of one role"), K::Role),
          flag(QStringLiteral("--all"), QStringLiteral("every kernel (the default)")),
          valued(QStringLiteral("--parallel"), QStringLiteral("N"),
                 QStringLiteral("kernels at once (0: all)")),
          valued(QStringLiteral("--timeout"), QStringLiteral("S"),
                 QStringLiteral("stop waiting after S seconds")),
          json(QStringLiteral("print each kernel's exit code and output as JSON"))},
         {K::Session, K::Command}},
        {QStringLiteral("shell"),
         QStringLiteral("SESSION [--kernel H] [--user U] [-- CMD...]"),
         QStringLiteral("interactive terminal in one kernel (default: the primary; bash, else "
                        "sh)"),
         {kernelOption,
          valued(QStringLiteral("--user"), QStringLiteral("U"), QStringLiteral("run as U"))},
         {K::Session, K::Command}},
        {QStringLiteral("top"),
         QStringLiteral("SESSION [--no-stream] [--json]"),
         QStringLiteral("live CPU, memory, net and block I/O per kernel, role and session"),
         {flag(QStringLiteral("--no-stream"), QStringLiteral("one sample, then exit")), json()},
         {K::Session}},
        {QStringLiteral("store key export"),
         QStringLiteral("[--output FILE]"),
         QStringLiteral("print (or write, 0600) the key that encrypts an etcd store's secrets "
                        "(made on first use), to share it"),
         {valued(QStringLiteral("--output"), QStringLiteral("FILE"),
                 QStringLiteral("write the key there instead"), K::File)},
         {}},
        {QStringLiteral("store key import"),
         QStringLiteral("[FILE | -]"),
         QStringLiteral("keep that key for this console in "
                        "$XDG_CONFIG_HOME/clusterdeck/store-keys/<store id>.key"),
         {},
         {K::File}},
        {QStringLiteral("__complete"),
         QStringLiteral("WORD..."),
         QStringLiteral("candidates for the last WORD (used by the shell completion scripts)"),
         {},
         {K::Text},
         true},
    };
}

} // namespace

const OptionSpec *CommandSpec::option(const QString &nameOrAlias) const
{
    for (const OptionSpec &o : options) {
        if (o.name == nameOrAlias || o.aliases.contains(nameOrAlias))
            return &o;
    }
    return nullptr;
}

ValueKind CommandSpec::positionalKind(int index) const
{
    if (positionals.isEmpty())
        return ValueKind::None;
    return positionals.value(index, positionals.last());
}

const QList<CommandSpec> &commandSpecs()
{
    static const QList<CommandSpec> specs = makeSpecs();
    return specs;
}

const QList<OptionSpec> &globalOptions()
{
    static const QList<OptionSpec> options = [] {
        OptionSpec store;
        store.name = QStringLiteral("--store");
        store.valueName = QStringLiteral("URL");
        store.help = QStringLiteral(
            "sqlite:///path/state.db or etcd://host:2379[,host2:2379]/prefix (default: "
            "$CLUSTERDECK_STORE, then $XDG_CONFIG_HOME/clusterdeck/config.yaml, then "
            "$XDG_DATA_HOME/clusterdeck/state.db)");
        store.kind = K::Text;
        return QList<OptionSpec>{
            store,
            flag(QStringLiteral("--help"),
                 QStringLiteral("show this help (COMMAND --help: that command's options)"),
                 {QStringLiteral("-h")}),
            flag(QStringLiteral("--version"), QStringLiteral("show the version"))};
    }();
    return options;
}

const CommandSpec &commandSpec(const QString &name)
{
    for (const CommandSpec &s : commandSpecs()) {
        if (s.name == name)
            return s;
    }
    qFatal("clusterdeckctl: no command spec named %s", qPrintable(name));
}

const CommandSpec *findCommandSpec(const QStringList &words, int *consumed)
{
    const CommandSpec *best = nullptr;
    int bestWords = 0;
    for (const CommandSpec &s : commandSpecs()) {
        const QStringList parts = s.name.split(QLatin1Char(' '));
        if (parts.size() > words.size() || parts.size() <= bestWords)
            continue;
        if (words.mid(0, parts.size()) == parts) {
            best = &s;
            bestWords = int(parts.size());
        }
    }
    if (consumed)
        *consumed = bestWords;
    return best;
}

QStringList subcommandsOf(const QString &group)
{
    QStringList subs;
    const QString prefix = group + QLatin1Char(' ');
    for (const CommandSpec &s : commandSpecs()) {
        if (s.hidden || !s.name.startsWith(prefix))
            continue;
        const QString next = s.name.mid(prefix.size()).section(QLatin1Char(' '), 0, 0);
        if (!subs.contains(next))
            subs.append(next);
    }
    return subs;
}

namespace {

// Wraps `text` to lines of at most `width` characters, each indented by `indent`.
QStringList wrap(const QString &text, int width, int indent)
{
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width - indent) {
            lines.append(QString(indent, QLatin1Char(' ')) + line);
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        lines.append(QString(indent, QLatin1Char(' ')) + line);
    return lines;
}

// A synopsis in words that stay whole: "[--mode single-node|multi-node|auto]" is one.
QStringList synopsisWords(const QString &synopsis)
{
    QStringList words;
    int depth = 0;
    for (const QString &part : synopsis.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (depth > 0)
            words.last() += QLatin1Char(' ') + part;
        else
            words.append(part);
        depth += int(part.count(QLatin1Char('['))) - int(part.count(QLatin1Char(']')));
    }
    return words;
}

QString usageLine(const CommandSpec &spec, const QString &lead)
{
    const QString head = lead + spec.name;
    // Continuation lines line up under the first argument unless that is too far right.
    const int indent = head.size() < 40 ? int(head.size()) + 1 : 8;
    QString out = head;
    int column = int(head.size());
    for (const QString &word : synopsisWords(spec.synopsis)) {
        if (column + 1 + word.size() > 96 && column > indent) {
            out += QLatin1Char('\n') + QString(indent, QLatin1Char(' ')) + word;
            column = indent + int(word.size());
        } else {
            out += QLatin1Char(' ') + word;
            column += 1 + int(word.size());
        }
    }
    return out + QLatin1Char('\n');
}

// An option as its help lists it: "-u, --username USER" and what it is for.
QPair<QString, QString> optionRow(const OptionSpec &o)
{
    QStringList names = o.aliases;
    names.append(o.name);
    QString left = names.join(QStringLiteral(", "));
    if (o.takesValue())
        left += QLatin1Char(' ') + o.valueName;
    QString help = o.help;
    if (o.repeatable)
        help += QStringLiteral(" (repeatable)");
    return {left, help};
}

// The rows of an "Options:" block, the help aligned in a second column.
QString optionLines(const QList<QPair<QString, QString>> &rows)
{
    int width = 0;
    for (const auto &r : rows)
        width = std::max(width, int(r.first.size()));
    width = std::min(width, 30);
    QString out;
    for (const auto &[left, help] : rows) {
        const QStringList helpLines = wrap(help, 96, width + 4);
        QString line = QStringLiteral("  ") + left;
        if (left.size() > width) {
            out += line + QLatin1Char('\n');
            line = QString(width + 2, QLatin1Char(' '));
        } else {
            line = line.leftJustified(width + 2);
        }
        out += line + QStringLiteral("  ") + helpLines.value(0).trimmed() + QLatin1Char('\n');
        for (qsizetype i = 1; i < helpLines.size(); ++i)
            out += helpLines.at(i) + QLatin1Char('\n');
    }
    return out;
}

// Text for a Markdown paragraph or table cell: what Markdown would read as markup is escaped
// ("<store id>" would be an HTML tag, "|" ends a cell).
QString markdownText(const QString &text)
{
    QString out;
    for (const QChar c : text) {
        if (c == u'<')
            out += QStringLiteral("&lt;");
        else if (c == u'>')
            out += QStringLiteral("&gt;");
        else if (c == u'\\' || c == u'*' || c == u'`' || c == u'|')
            out += QLatin1Char('\\') + c;
        else
            out += c;
    }
    return out;
}

// An option's names and value as a table cell: `-u`, `--username USER`.
QString markdownOption(const OptionSpec &o)
{
    QStringList names;
    for (const QString &alias : o.aliases)
        names.append(QLatin1Char('`') + alias + QLatin1Char('`'));
    QString name = o.name;
    if (o.takesValue())
        name += QLatin1Char(' ') + o.valueName;
    // A '|' in a cell ends it even inside a code span unless escaped.
    name.replace(QLatin1Char('|'), QStringLiteral("\\|"));
    names.append(QLatin1Char('`') + name + QLatin1Char('`'));
    return names.join(QStringLiteral(", "));
}

QString markdownOptionTable(const QList<OptionSpec> &options)
{
    QString out = QStringLiteral("| option | meaning |\n|---|---|\n");
    for (const OptionSpec &o : options)
        out += QStringLiteral("| %1 | %2%3 |\n")
                   .arg(markdownOption(o), markdownText(o.help),
                        o.repeatable ? QStringLiteral(" (repeatable)") : QString());
    return out;
}

} // namespace

QString helpText(const CommandSpec &spec)
{
    QString out = usageLine(spec, QStringLiteral("Usage: clusterdeckctl [--store URL] "));
    out +=
        QLatin1Char('\n') + wrap(spec.summary, 96, 0).join(QLatin1Char('\n')) + QLatin1Char('\n');
    QList<QPair<QString, QString>> rows;
    for (const OptionSpec &o : spec.options)
        rows.append(optionRow(o));
    rows.append({QStringLiteral("-h, --help"), QStringLiteral("show this help")});
    return out + QStringLiteral("\nOptions:\n") + optionLines(rows);
}

QString groupHelpText(const QString &group)
{
    QString out;
    bool first = true;
    for (const CommandSpec &s : commandSpecs()) {
        if (s.hidden || !s.name.startsWith(group + QLatin1Char(' ')))
            continue;
        out += usageLine(s, first ? QStringLiteral("Usage: clusterdeckctl ")
                                  : QStringLiteral("       clusterdeckctl "));
        first = false;
    }
    out += QStringLiteral("\nSee clusterdeckctl %1 SUBCOMMAND --help for each one's options.\n")
               .arg(group);
    return out;
}

QString overviewText()
{
    QString out = QStringLiteral(
        "Usage: clusterdeckctl [--store URL] COMMAND [ARGS...]\n\n"
        "Launch, watch and tear down cluster sessions across Docker hosts.\n\nCommands:\n");
    for (const CommandSpec &s : commandSpecs()) {
        if (s.hidden)
            continue;
        out += usageLine(s, QStringLiteral("  "));
        for (const QString &line : wrap(s.summary, 96, 6))
            out += line + QLatin1Char('\n');
    }
    QList<QPair<QString, QString>> rows;
    for (const OptionSpec &o : globalOptions())
        rows.append(optionRow(o));
    return out + QStringLiteral("\nOptions:\n") + optionLines(rows);
}

QString markdownReference()
{
    QString out = QStringLiteral("```text\nclusterdeckctl [--store URL] COMMAND [ARGS...]\n```\n\n"
                                 "Options before the command:\n\n");
    out += markdownOptionTable(globalOptions());
    out += QStringLiteral("\nEvery command also takes `-h`, `--help` (its usage and options).\n");
    for (const CommandSpec &s : commandSpecs()) {
        if (s.hidden)
            continue;
        out += QStringLiteral("\n### `%1`\n\n```text\n").arg(s.name);
        out += usageLine(s, QStringLiteral("clusterdeckctl ")) + QStringLiteral("```\n\n");
        out += markdownText(s.summary) + QLatin1Char('\n');
        if (!s.options.isEmpty())
            out += QLatin1Char('\n') + markdownOptionTable(s.options);
    }
    return out;
}

} // namespace ClusterDeck::Cli
