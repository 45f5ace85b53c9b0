// LineSplitter and BoundedBuffer (issue 24 D.9): a kernel's output becomes lines without holding
// more than one line of a fixed size, and what is kept of it has a fixed ceiling.

#include "common/boundedbuffer.h"
#include "common/linesplitter.h"

#include <QTest>

using namespace ClusterDeck;

class TestLineSplitter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void lines_data();
    void lines();
    void endlessLineHoldsAtMostOneLine();
    void bounded_data();
    void bounded();
};

void TestLineSplitter::lines_data()
{
    QTest::addColumn<QByteArrayList>("chunks");
    QTest::addColumn<int>("max");
    QTest::addColumn<QByteArrayList>("lines"); // fed, then flushed
    QTest::addColumn<int>("cut");
    QTest::newRow("whole lines") << QByteArrayList{"a\nbb\n"} << 8 << QByteArrayList{"a", "bb"}
                                 << 0;
    QTest::newRow("across chunks")
        << QByteArrayList{"a", "b\nc", "d\n"} << 8 << QByteArrayList{"ab", "cd"} << 0;
    QTest::newRow("empty lines kept")
        << QByteArrayList{"\n\nx\n"} << 8 << QByteArrayList{"", "", "x"} << 0;
    QTest::newRow("last line without newline")
        << QByteArrayList{"a\nrest"} << 8 << QByteArrayList{"a", "rest"} << 0;
    QTest::newRow("exactly the limit")
        << QByteArrayList{"1234\n"} << 4 << QByteArrayList{"1234"} << 0;
    QTest::newRow("one over the limit")
        << QByteArrayList{"12345\n"} << 4 << QByteArrayList{"1234", "5"} << 1;
    QTest::newRow("cut falls on the end")
        << QByteArrayList{"12345678", "\nx\n"} << 4 << QByteArrayList{"1234", "5678", "x"} << 1;
    QTest::newRow("long line over chunks") << QByteArrayList{"123", "456", "789\nab"} << 4
                                           << QByteArrayList{"1234", "5678", "9", "ab"} << 1;
    QTest::newRow("two long lines") << QByteArrayList{"123456\nabcdef\n"} << 4
                                    << QByteArrayList{"1234", "56", "abcd", "ef"} << 2;
}

void TestLineSplitter::lines()
{
    QFETCH(QByteArrayList, chunks);
    QFETCH(int, max);
    QFETCH(QByteArrayList, lines);
    QFETCH(int, cut);
    LineSplitter splitter(max);
    QByteArrayList got;
    for (const QByteArray &c : std::as_const(chunks)) {
        got += splitter.feed(c);
        QVERIFY(splitter.pendingBytes() < max);
    }
    got += splitter.flush();
    QCOMPARE(got, lines);
    QCOMPARE(splitter.cutLines(), qsizetype(cut));
    QCOMPARE(splitter.pendingBytes(), 0);
}

// `yes | tr -d '\n'`: 64 MiB without a newline go through in pieces of the limit, the splitter
// never holding a whole piece.
void TestLineSplitter::endlessLineHoldsAtMostOneLine()
{
    LineSplitter splitter;
    const QByteArray chunk(1024 * 1024, 'y');
    qint64 handedOn = 0;
    for (int i = 0; i < 64; ++i) {
        for (const QByteArray &piece : splitter.feed(chunk)) {
            QCOMPARE(piece.size(), LineSplitter::kDefaultMaxLineBytes);
            handedOn += piece.size();
        }
        QVERIFY(splitter.pendingBytes() < LineSplitter::kDefaultMaxLineBytes);
    }
    QCOMPARE(handedOn + splitter.pendingBytes(), qint64(64) * 1024 * 1024);
    QCOMPARE(splitter.cutLines(), 1);
}

void TestLineSplitter::bounded_data()
{
    QTest::addColumn<bool>("tail");
    QTest::addColumn<QByteArrayList>("chunks");
    QTest::addColumn<QByteArray>("kept");
    QTest::addColumn<qint64>("dropped");
    QTest::newRow("head, fits") << false << QByteArrayList{"ab", "cd"} << QByteArray("abcd")
                                << qint64(0);
    QTest::newRow("head, over") << false << QByteArrayList{"abc", "def", "gh"}
                                << QByteArray("abcde") << qint64(3);
    QTest::newRow("tail, over") << true << QByteArrayList{"abc", "def", "gh"} << QByteArray("defgh")
                                << qint64(3);
    QTest::newRow("tail, one big chunk")
        << true << QByteArrayList{"a", "0123456789"} << QByteArray("56789") << qint64(6);
}

void TestLineSplitter::bounded()
{
    QFETCH(bool, tail);
    QFETCH(QByteArrayList, chunks);
    QFETCH(QByteArray, kept);
    QFETCH(qint64, dropped);
    BoundedBuffer buffer(tail ? BoundedBuffer::Keep::Tail : BoundedBuffer::Keep::Head, 5);
    for (const QByteArray &c : std::as_const(chunks))
        buffer.append(c);
    QCOMPARE(buffer.data(), kept);
    QCOMPARE(buffer.droppedBytes(), dropped);
}

QTEST_GUILESS_MAIN(TestLineSplitter)
#include "tst_linesplitter.moc"
