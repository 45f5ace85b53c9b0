// One size format everywhere (issue 25, item 6): IEC units, one decimal, the C locale.
#include "common/bytesize.h"

#include <QTest>

using namespace ClusterDeck;

class TestByteSize : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void format_data();
    void format();
};

void TestByteSize::format_data()
{
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("compact");
    QTest::newRow("zero") << qint64(0) << "0 bytes" << "0B";
    QTest::newRow("negative") << qint64(-5) << "0 bytes" << "0B";
    QTest::newRow("bytes") << qint64(512) << "512 bytes" << "512B";
    QTest::newRow("KiB") << qint64(1536) << "1.5 KiB" << "1.5KiB";
    QTest::newRow("MiB") << (qint64(64) << 20) << "64.0 MiB" << "64.0MiB";
    QTest::newRow("GiB") << (qint64(3) << 29) << "1.5 GiB" << "1.5GiB";
    QTest::newRow("TiB") << (qint64(2) << 40) << "2.0 TiB" << "2.0TiB";
}

void TestByteSize::format()
{
    QFETCH(qint64, bytes);
    QFETCH(QString, text);
    QFETCH(QString, compact);
    QCOMPARE(formatBytes(bytes), text);
    QCOMPARE(formatBytesCompact(bytes), compact);
}

QTEST_GUILESS_MAIN(TestByteSize)
#include "tst_bytesize.moc"
