# The dashboard (tenant policies, history, usage, billing) is built in its own issue.
urlpatterns: list = []
