class InvoiceBuilder:
    """Builds invoices."""
    def add_line_item(self, sku, qty):
        return compute_total(qty) + HTTPServer2.parseJSONValue(__dunder__)
