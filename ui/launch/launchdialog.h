#pragma once

#include "http/httptypes.h"
#include "placement/placement.h"
#include "plan/imagedefaults.h"
#include "plan/launchoptions.h"
#include "provision/launchplanner.h"
#include "store/status.h"
#include "template/clustertemplate.h"

#include <QDialog>
#include <QMap>

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTreeWidget;

namespace ClusterDeck::Ui {

class ConsoleController;

// Launches a cluster session: template, a count per role (bounded by the role's min/max), env and
// mount overrides, name, mode; a placement preview from the core's pure place() before anything
// is created; then per-kernel progress with a Cancel that rolls the session back. Errors are
// shown in full.
class LaunchDialog : public QDialog
{
    Q_OBJECT

public:
    explicit LaunchDialog(ConsoleController *controller, QWidget *parent = nullptr);
    ~LaunchDialog() override;

    // Templates offered: the shipped samples and the user's folder (plus any added here).
    void addTemplateFile(const QString &path);
    bool selectTemplate(const QString &pathOrName);
    const ClusterTemplate *currentTemplate() const;
    QString templatePath() const;

    QSpinBox *countBox(const QString &role) const { return m_counts.value(role); }
    QLineEdit *nameEdit() const { return m_name; }
    QComboBox *modeBox() const { return m_mode; }
    QString previewStatusText() const;
    QTableWidget *envTable() const { return m_env; }
    QTableWidget *mountsTable() const { return m_mounts; }
    QTreeWidget *previewTree() const { return m_preview; }
    QPushButton *launchButton() const { return m_launch; }
    QPushButton *cancelButton() const { return m_cancel; }
    QTreeWidget *progressTree() const { return m_progress; }
    QProgressBar *progressBar() const { return m_bar; }
    QPlainTextEdit *errorText() const { return m_error; }
    // Image pulls during the launch: one bar per host, plus the total.
    QProgressBar *pullBar(const QString &host) const { return m_pullBars.value(host); }
    QProgressBar *pullTotalBar() const { return m_pullTotal; }

    // What launching now would send, and where it would land (or why it would not fit).
    Result<LaunchOptions> launchOptions() const;
    Result<ClusterPlan> previewPlan() const;
    Result<Placement> previewPlacement() const;
    // Both, from LaunchPlanner: what Provisioner::prepare decides with the same inputs.
    Result<LaunchPlan> previewLaunchPlan() const;
    // Shown when the template mounts host paths: which, and that the kernels can change them.
    QLabel *hostPathsWarning() const { return m_hostPaths; }
    // Hosts for the preview; by default the controller's latest host statuses.
    void setHostCapacities(const QList<HostCapacity> &hosts);
    // The multi-node network driver for the preview; by default the store's (read at opening).
    void setNetworkDriver(NetworkDriver driver);
    // What the template's images bring (ENV, service ports …) for the preview; by default asked
    // of the hosts and registries in the background whenever a template is loaded, as the
    // launch itself does.
    void setImageDefaults(const ImageDefaultsMap &images);

    bool isLaunching() const { return m_launching; }
    QString launchedSessionId() const { return m_sessionId; }

public Q_SLOTS:
    void updatePreview();
    void launch();
    void cancelLaunch();

Q_SIGNALS:
    void launched(const QString &sessionId);
    void launchFailed(const QString &error);

protected:
    void reject() override;

private:
    void loadTemplate(int index);
    void requestImageDefaults();
    void rebuildRoles();
    void updateHostPaths(const ClusterPlan *plan);
    void setKernelStatus(const QString &hostname, KernelStatus status);
    void setPullProgress(const QString &host, const QString &image, double fraction,
                         qint64 downloaded, qint64 total, const QString &error);
    void finishLaunch(bool ok, const QString &sessionId, const QString &message);
    QList<HostCapacity> capacities() const;

    ConsoleController *m_controller;
    QComboBox *m_template;
    QLabel *m_description;
    QLabel *m_hostPaths;
    QFormLayout *m_rolesForm;
    QWidget *m_rolesBox;
    QMap<QString, QSpinBox *> m_counts;
    QLineEdit *m_name;
    QComboBox *m_mode;
    QTableWidget *m_env;
    QTableWidget *m_mounts;
    QTreeWidget *m_preview;
    QLabel *m_previewStatus;
    QTreeWidget *m_progress;
    QProgressBar *m_bar;
    QWidget *m_pullBox;
    QFormLayout *m_pullForm;
    QProgressBar *m_pullTotal;
    QMap<QString, QProgressBar *> m_pullBars;
    QMap<QString, QMap<QString, double>> m_pullFractions; // host → image → 0..1
    QPlainTextEdit *m_error;
    QPushButton *m_launch;
    QPushButton *m_cancel;
    QPushButton *m_close;

    std::optional<ClusterTemplate> m_loaded;
    QString m_loadedSource;
    QString m_loadError;
    std::optional<QList<HostCapacity>> m_hostsOverride;
    NetworkDriver m_networkDriver = NetworkDriver::Vxlan; // the store's, once read
    ImageDefaultsMap m_imageDefaults;
    bool m_imageDefaultsOverride = false;
    quint64 m_imageDefaultsRequest = 0; // answers to an earlier template's request are dropped
    bool m_launching = false;
    CancelToken m_cancelToken;
    QString m_sessionId;
};

} // namespace ClusterDeck::Ui
