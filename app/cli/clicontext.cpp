#include "clicontext.h"

#include "store/statestore.h"
#include "store/storefactory.h"
#include "store/storeurl.h"

#include <cstdio>

namespace ClusterDeck::Cli {

Context::Context(QString storeOption)
    : m_storeOption(std::move(storeOption))
    , m_out(stdout)
    , m_err(stderr)
{}

Context::~Context()
{
    m_out.flush();
    m_err.flush();
}

Result<StateStore *> Context::store()
{
    if (m_store)
        return m_store.get();
    auto url = StoreUrl::resolve(m_storeOption);
    if (!url)
        return ClusterDeck::fail(url.error());
    auto store = openStore(*url);
    if (!store)
        return ClusterDeck::fail(store.error());
    m_store = std::move(*store);
    return m_store.get();
}

int Context::fail(const Error &error)
{
    return fail(error.toString(), 1);
}

int Context::fail(const QString &message, int status)
{
    m_out.flush();
    // One line, as scripts expect: newlines in daemon messages become "; ".
    QString line = message;
    line.replace(QLatin1Char('\n'), QStringLiteral("; "));
    m_err << "error: " << line << '\n';
    m_err.flush();
    return status;
}

} // namespace ClusterDeck::Cli
