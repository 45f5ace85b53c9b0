// A race on purpose, run under the same ThreadSanitizer options as the tests (scripts/test.sh):
// it must be reported, so the suppressions (tests/tsan.supp) cannot hide a race in our code.
#include <QList>
#include <QString>

#include <thread>

int main()
{
    QList<QString> shared; // ours, written by two threads without a lock
    std::thread a([&] { shared.append(QStringLiteral("a")); });
    std::thread b([&] { shared.append(QStringLiteral("b")); });
    a.join();
    b.join();
    return 0;
}
