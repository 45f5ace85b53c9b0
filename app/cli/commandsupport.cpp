#include "commandsupport.h"

#include "host/hostregistry.h"
#include "store/statestore.h"

#include <QLoggingCategory>

namespace ClusterDeck::Cli {

namespace {

Http::CancelToken *g_interrupt = nullptr;

extern "C" void onInterrupt(int)
{
    if (g_interrupt)
        g_interrupt->cancel();
}

} // namespace

InterruptScope::InterruptScope()
{
    g_interrupt = &m_token;
    struct sigaction sa = {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &m_oldInt);
    sigaction(SIGTERM, &sa, &m_oldTerm);
}

InterruptScope::~InterruptScope()
{
    sigaction(SIGINT, &m_oldInt, nullptr);
    sigaction(SIGTERM, &m_oldTerm, nullptr);
    g_interrupt = nullptr;
}

void quietLibraries()
{
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(
            QStringLiteral("clusterdeck.*.debug=false\nclusterdeck.*.info=false"));
}

QString actor()
{
    const QString user = qEnvironmentVariable("USER", QStringLiteral("admin"));
    return user + QStringLiteral("@cli");
}

Result<Env> openEnv(Context &context)
{
    auto store = context.store();
    if (!store)
        return fail(store.error());
    Env env;
    env.store = *store;
    env.registry = std::make_unique<HostRegistry>(*store);
    return env;
}

} // namespace ClusterDeck::Cli
