#include "storecommands.h"

#include "args.h"
#include "commandspec.h"
#include "commandsupport.h"
#include "common/privatefiles.h"
#include "store/statestore.h"
#include "store/storekey.h"

#include <QFile>

#include <cstdio>

namespace ClusterDeck::Cli {

namespace {

int keyExport(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("store key export"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return context.usage(QStringLiteral("store key export takes no arguments (--output FILE)"));
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    auto key = (*store)->storeKey();
    if (!key)
        return context.fail(key.error());
    const QString output = a.value(QStringLiteral("--output"));
    if (output.isEmpty() || output == QLatin1String("-")) {
        context.out() << QString::fromUtf8(key->toText());
        return 0;
    }
    if (auto ok = PrivateFiles::writeFile(output, key->toText(), false); !ok)
        return context.fail(ok.error());
    context.err() << "wrote the store key of " << key->storeId << " (" << key->fingerprint()
                  << ") to " << output << " (mode 0600); it opens every secret of the store: "
                  << "move it only over a safe channel and delete the copy after the import\n";
    return 0;
}

int keyImport(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("store key import"), &a))
        return *stop;
    if (a.positional.size() > 1)
        return context.usage(QStringLiteral("store key import takes one FILE (or - for stdin)"));
    const QString input = a.positional.value(0, QStringLiteral("-"));
    QFile f;
    const bool stdinInput = input == QLatin1String("-");
    const bool opened = stdinInput ? f.open(stdin, QIODevice::ReadOnly)
                                   : (f.setFileName(input), f.open(QIODevice::ReadOnly));
    if (!opened)
        return context.fail(Error::make(
            Error::Kind::Io, stdinInput ? QStringLiteral("stdin") : input, f.errorString()));
    auto key = StoreKey::parse(f.readAll(), stdinInput ? QStringLiteral("stdin") : input);
    if (!key)
        return context.fail(key.error());
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    if (auto ok = (*store)->importStoreKey(*key); !ok)
        return context.fail(ok.error());
    context.out() << "imported the store key of " << key->storeId << " (" << key->fingerprint()
                  << ") into " << StoreKey::pathFor(key->storeId) << '\n';
    return 0;
}

} // namespace

int storeCommand(Context &context, const QStringList &args)
{
    if (!args.isEmpty() &&
        (args.last() == QLatin1String("--help") || args.last() == QLatin1String("-h")) &&
        args.size() <= 2) {
        context.out() << groupHelpText(QStringLiteral("store key"));
        return 0;
    }
    if (args.size() < 2 || args.first() != QLatin1String("key"))
        return context.usage(QStringLiteral("usage: store key export [--output FILE] | "
                                            "store key import [FILE | -]"));
    const QString sub = args.at(1);
    if (sub == QLatin1String("export"))
        return keyExport(context, args.mid(2));
    if (sub == QLatin1String("import"))
        return keyImport(context, args.mid(2));
    return context.usage(
        QStringLiteral("unknown store key command '%1' (export or import)").arg(sub));
}

} // namespace ClusterDeck::Cli
